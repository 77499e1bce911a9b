//! URLs, parsed strictly, for the `Http` allow-list.
//!
//! A URL is accepted only in one plain form: `http` or `https`, a host
//! name of ASCII letters, digits, `-` and `.` (or a dotted IPv4 address
//! in its canonical form), an optional port, and a path. Everything a
//! request could use to look like one host while going to another is
//! refused or normalised before any comparison: user information
//! (`https://a.example@b.example/`), upper case, a trailing dot, a default
//! port written out, non-canonical IP forms (`0x7f.1`, `127.1`),
//! percent-encoded unreserved characters, `.` and `..` segments, and
//! backslashes. Matching is then a comparison of parts, never of text.
//!
//! A path is refused, not normalised, when a server could read it as
//! another path than this module does: an encoded separator or dot
//! (`%2F`, `%5C`, `%2E`, in any case), an encoded `%` (`%25`, which a
//! server that decodes twice turns into one of those), or a `;` (a path
//! parameter, which some servers drop: `/q/..;/admin` is `/admin` to
//! them), or percent-encoded bytes that are not UTF-8 text (`%C0%AE`, an
//! over-long `.` that lax servers decode as one), or a character that
//! Unicode's compatibility folding turns into a separator or dots (`．`,
//! `／`, `‥`, raw or encoded). So `/q/..%2Fadmin` never passes a rule for
//! `/q`.
//!
//! Invariant: two URLs that reach the same resource by these rules
//! normalise to the same [`Url`]; anything this module cannot normalise is
//! an error, so the allow-list fails closed.

use std::fmt;

/// A normalised `http`/`https` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    /// `http` or `https`.
    pub scheme: String,
    /// The host, lower case, without a trailing dot.
    pub host: String,
    /// The port, explicit or the scheme's default.
    pub port: u16,
    /// The path, starting with `/`, with dot segments resolved and
    /// unreserved characters decoded.
    pub path: String,
    /// The query, without `?`, as written (empty when absent).
    pub query: String,
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme, self.host)?;
        if self.port != default_port(&self.scheme) {
            write!(f, ":{}", self.port)?;
        }
        write!(f, "{}", self.path)?;
        if !self.query.is_empty() {
            write!(f, "?{}", self.query)?;
        }
        Ok(())
    }
}

fn default_port(scheme: &str) -> u16 {
    if scheme == "https" { 443 } else { 80 }
}

/// Why a URL (or an allow-list entry) was refused: what was wrong, with
/// what was found as data; `Display` says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlError {
    /// A space or a control character anywhere.
    Whitespace,
    /// A `\` anywhere.
    Backslash,
    /// No `scheme://` at the start.
    NoScheme,
    /// A scheme other than `http` or `https` (lower-cased).
    Scheme {
        /// The scheme found.
        found: String,
    },
    /// User information (`user@host`).
    UserInfo,
    /// A port that is not a number from 1 to 65535.
    Port {
        /// The port as written.
        found: String,
    },
    /// No host.
    NoHost,
    /// An IPv6 address (`[...]`).
    Ipv6,
    /// A host with characters other than ASCII letters, digits, `-`, `.`.
    HostCharacters {
        /// The host (lower-cased).
        found: String,
    },
    /// A host with an empty label or one over 63 characters.
    HostLabels {
        /// The host.
        found: String,
    },
    /// A numeric host that is not a canonical IPv4 address.
    Ipv4 {
        /// The host.
        found: String,
    },
    /// A `;` in the path.
    PathParameter,
    /// A `%` not followed by two hexadecimal digits.
    PercentHex {
        /// What followed the `%` (up to two characters).
        found: String,
    },
    /// An encoded `/`, `\`, `.` or `%` in the path.
    EncodedSeparator {
        /// The character encoded.
        ch: char,
        /// Its two hex digits, as written.
        hex: String,
    },
    /// Percent-encoded bytes that are not UTF-8 text (an over-long
    /// encoding of `.` or `/`, such as `%C0%AE`, which a lax server
    /// decodes as one).
    EncodedNotText,
    /// A character that some servers fold into `.`, `/` or `\`
    /// (`．`, `／`, `‥`: Unicode's compatibility forms).
    LookAlikeSeparator {
        /// The character.
        ch: char,
    },
    /// An allow-list entry with a query or a fragment.
    RuleQuery,
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::Whitespace => {
                f.write_str("a URL may not contain spaces or control characters")
            }
            UrlError::Backslash => f.write_str("a URL may not contain `\\`"),
            UrlError::NoScheme => f.write_str("expected `http://` or `https://` at the start"),
            UrlError::Scheme { found } => {
                write!(f, "expected the scheme `http` or `https`, found `{found}`")
            }
            UrlError::UserInfo => {
                f.write_str("a URL with user information (`user@host`) is not allowed")
            }
            UrlError::Port { found } => {
                write!(f, "expected a port from 1 to 65535, found `{found}`")
            }
            UrlError::NoHost => f.write_str("expected a host name"),
            UrlError::Ipv6 => f.write_str("IPv6 addresses are not supported in URLs here"),
            UrlError::HostCharacters { found } => write!(
                f,
                "expected a host of ASCII letters, digits, `-` and `.`, found `{found}` (write an international name in its `xn--` form)"
            ),
            UrlError::HostLabels { found } => write!(
                f,
                "expected dot-separated labels of 1 to 63 characters, found `{found}`"
            ),
            UrlError::Ipv4 { found } => write!(
                f,
                "expected an IPv4 address as four decimal numbers from 0 to 255, found `{found}`"
            ),
            UrlError::PathParameter => f.write_str(
                "a URL path may not contain `;` (a path parameter, which servers read differently)",
            ),
            UrlError::PercentHex { found } => write!(
                f,
                "expected two hexadecimal digits after `%`, found `%{found}`"
            ),
            UrlError::EncodedSeparator { ch, hex } => write!(
                f,
                "a URL path may not contain an encoded `{ch}` (`%{hex}`), which servers read differently"
            ),
            UrlError::EncodedNotText => f.write_str(
                "a URL path may not contain percent-encoded bytes that are not UTF-8 text (an over-long `.` or `/`, which lax servers decode as one)",
            ),
            UrlError::LookAlikeSeparator { ch } => write!(
                f,
                "a URL path may not contain `{ch}` (U+{:04X}), which servers that fold Unicode read as `.`, `/` or `\\`",
                u32::from(*ch)
            ),
            UrlError::RuleQuery => {
                f.write_str("an allow-list entry may not have a query or fragment")
            }
        }
    }
}

impl std::error::Error for UrlError {}

/// The URL a reference found at `base` names (a redirect's `Location`),
/// as text to [`parse`]: a URL with a scheme as it is, and a relative
/// reference resolved against `base` as RFC 3986 (section 5.2) does:
/// `//host/p` takes `base`'s scheme, `/p` its origin, `?q` its path,
/// `p` or `../p` the directory of its path (dot segments are resolved
/// by [`parse`], which stops a path climbing at `/`), and a fragment is
/// dropped.
pub fn resolve(base: &Url, reference: &str) -> String {
    let reference = reference.split_once('#').map_or(reference, |(r, _)| r);
    let has_scheme = reference.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if has_scheme {
        return reference.to_string();
    }
    if reference.starts_with("//") {
        return format!("{}:{reference}", base.scheme);
    }
    let origin = format!("{}://{}:{}", base.scheme, base.host, base.port);
    if reference.starts_with('/') {
        return format!("{origin}{reference}");
    }
    if reference.is_empty() {
        return base.to_string();
    }
    if reference.starts_with('?') {
        return format!("{origin}{}{reference}", base.path);
    }
    let dir = base.path.rsplit_once('/').map_or("", |(dir, _)| dir);
    format!("{origin}{dir}/{reference}")
}

/// Parse and normalise `text`; the error says what was wrong.
pub fn parse(text: &str) -> Result<Url, UrlError> {
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(UrlError::Whitespace);
    }
    if text.contains('\\') {
        return Err(UrlError::Backslash);
    }
    let (scheme, rest) = text.split_once("://").ok_or(UrlError::NoScheme)?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(UrlError::Scheme { found: scheme });
    }
    let rest = rest.split_once('#').map_or(rest, |(r, _)| r);
    let (authority, path_query) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.contains('@') {
        return Err(UrlError::UserInfo);
    }
    // `[::1]` holds colons of its own: refused whole, before its last
    // colon is taken for a port's.
    if authority.starts_with('[') {
        return Err(UrlError::Ipv6);
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => {
            let port: u16 = p
                .parse()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| UrlError::Port {
                    found: p.to_string(),
                })?;
            (h, port)
        }
        None => (authority, default_port(&scheme)),
    };
    let host = normalise_host(host)?;
    let (path, query) = match path_query.split_once('?') {
        Some((p, q)) => (p, q),
        None => (path_query, ""),
    };
    Ok(Url {
        scheme,
        host,
        port,
        path: normalise_path(path)?,
        query: query.to_string(),
    })
}

fn normalise_host(host: &str) -> Result<String, UrlError> {
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    if host.is_empty() {
        return Err(UrlError::NoHost);
    }
    if host.starts_with('[') {
        return Err(UrlError::Ipv6);
    }
    if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
    {
        return Err(UrlError::HostCharacters { found: host });
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.iter().any(|l| l.is_empty() || l.len() > 63) {
        return Err(UrlError::HostLabels { found: host });
    }
    // A host whose last label is numeric must be a canonical IPv4 address:
    // `127.1`, `0x7f.0.0.1` and `2130706433` name 127.0.0.1 to some
    // resolvers and something else to a text comparison.
    if labels
        .last()
        .is_some_and(|l| l.chars().all(|c| c.is_ascii_digit()))
        || host.starts_with("0x")
    {
        let canonical = labels.len() == 4
            && labels
                .iter()
                .all(|l| l.parse::<u8>().is_ok() && (l.len() == 1 || !l.starts_with('0')));
        if !canonical {
            return Err(UrlError::Ipv4 { found: host });
        }
    }
    Ok(host)
}

/// Decode percent-encoded unreserved characters, upper-case the hex of the
/// others, and resolve `.` and `..` segments; refuse what a server could
/// read as another path (see the module's documentation).
fn normalise_path(path: &str) -> Result<String, UrlError> {
    if path.contains(';') {
        return Err(UrlError::PathParameter);
    }
    let mut decoded = String::new();
    // The run of encoded bytes past ASCII being read: it must be UTF-8.
    let mut high: Vec<u8> = Vec::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        if is_look_alike_separator(c) {
            return Err(UrlError::LookAlikeSeparator { ch: c });
        }
        if c != '%' {
            decoded.push(c);
            continue;
        }
        let hex: String = chars.by_ref().take(2).collect();
        let byte = u8::from_str_radix(&hex, 16)
            .ok()
            .filter(|_| hex.len() == 2)
            .ok_or_else(|| UrlError::PercentHex { found: hex.clone() })?;
        if byte >= 0x80 {
            // Kept encoded, as it was written; the run it ends checked.
            high.push(byte);
            decoded.push_str(&format!("%{byte:02X}"));
            if chars.peek() != Some(&'%') {
                encoded_text(&mut high)?;
            }
            continue;
        }
        encoded_text(&mut high)?;
        let ch = char::from(byte);
        if matches!(ch, '/' | '\\' | '.' | '%') {
            return Err(UrlError::EncodedSeparator { ch, hex });
        }
        if ch.is_ascii_alphanumeric() || matches!(ch, '-' | '.' | '_' | '~') {
            decoded.push(ch);
        } else {
            decoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded_text(&mut high)?;
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = decoded.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
        // A path ending in `/.` or `/..` names a directory.
        if i == last && matches!(*seg, "." | "..") {
            out.push("");
        }
    }
    Ok(format!("/{}", out.join("/")))
}

/// Check the run of percent-encoded bytes past ASCII just read (and
/// empty it): UTF-8 text, whose characters are not look-alikes of a
/// separator.
fn encoded_text(high: &mut Vec<u8>) -> Result<(), UrlError> {
    if high.is_empty() {
        return Ok(());
    }
    let text = std::str::from_utf8(high).map_err(|_| UrlError::EncodedNotText)?;
    if let Some(ch) = text.chars().find(|c| is_look_alike_separator(*c)) {
        return Err(UrlError::LookAlikeSeparator { ch });
    }
    high.clear();
    Ok(())
}

/// Characters that Unicode's compatibility folding (NFKC), which some
/// servers apply to paths, turns into `.`, `..`, `...`, `/` or `\`.
fn is_look_alike_separator(c: char) -> bool {
    matches!(
        c,
        '\u{2024}' // one dot leader
            | '\u{2025}' // two dot leader
            | '\u{2026}' // ellipsis
            | '\u{FE52}' // small full stop
            | '\u{FF0E}' // fullwidth full stop
            | '\u{FF0F}' // fullwidth solidus
            | '\u{FF3C}' // fullwidth reverse solidus
            | '\u{FE68}' // small reverse solidus
            | '\u{2215}' // division slash
            | '\u{2044}' // fraction slash
            | '\u{29F8}' // big solidus
            | '\u{29F9}' // big reverse solidus
    )
}

/// One allow-list entry: a scheme, host and port, and a path prefix that
/// matches whole segments (`/api` matches `/api` and `/api/x`, not
/// `/apix`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The URL the rule was written as, normalised.
    pub url: Url,
}

impl Rule {
    /// Parse an allow-list entry; it may not have a query.
    pub fn parse(text: &str) -> Result<Rule, UrlError> {
        let url = parse(text)?;
        if !url.query.is_empty() || text.contains('#') {
            return Err(UrlError::RuleQuery);
        }
        Ok(Rule { url })
    }

    /// Whether `url` is allowed by this rule.
    pub fn allows(&self, url: &Url) -> bool {
        let prefix = self.url.path.trim_end_matches('/');
        url.scheme == self.url.scheme
            && url.host == self.url.host
            && url.port == self.url.port
            && (url.path == prefix
                || prefix.is_empty()
                || url
                    .path
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('/')))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(rule: &str, url: &str) -> bool {
        match (Rule::parse(rule), parse(url)) {
            (Ok(r), Ok(u)) => r.allows(&u),
            _ => false,
        }
    }

    #[test]
    fn relative_references_resolve_against_the_url_they_were_found_at() {
        let base =
            parse("https://shop.example:8443/ok/redir?x=1").unwrap_or_else(|e| panic!("{e}"));
        let at = |r: &str| parse(&resolve(&base, r)).map(|u| u.to_string());
        for (reference, want) in [
            ("target", "https://shop.example:8443/ok/target"),
            ("./target?y=2", "https://shop.example:8443/ok/target?y=2"),
            ("../up", "https://shop.example:8443/up"),
            ("/root", "https://shop.example:8443/root"),
            ("?y=2", "https://shop.example:8443/ok/redir?y=2"),
            ("", "https://shop.example:8443/ok/redir?x=1"),
            ("#part", "https://shop.example:8443/ok/redir?x=1"),
            ("t#part", "https://shop.example:8443/ok/t"),
            ("//other.example/p", "https://other.example/p"),
            ("HTTP://Other.Example/p", "http://other.example/p"),
        ] {
            assert_eq!(at(reference), Ok(want.to_string()), "{reference:?}");
        }
        // Climbing above the root stops there, as in any URL.
        assert_eq!(
            at("../../../etc"),
            Ok("https://shop.example:8443/etc".to_string())
        );
        // Not a scheme: a first segment with a colon after a digit.
        assert_eq!(
            at("1x:y"),
            Ok("https://shop.example:8443/ok/1x:y".to_string())
        );
    }

    #[test]
    fn equivalent_spellings_normalise_alike() {
        let a = parse("HTTPS://Air-One.Example.:443/offers/../offers/%7Eall");
        assert_eq!(
            a.map(|u| u.to_string()),
            Ok("https://air-one.example/offers/~all".to_string())
        );
    }

    #[test]
    fn tricks_do_not_get_past_the_allow_list() {
        let rule = "https://air-one.example/offers";
        assert!(allowed(rule, "https://air-one.example/offers"));
        assert!(allowed(rule, "https://AIR-ONE.example./offers/today?x=1"));
        assert!(!allowed(
            rule,
            "https://air-one.example@attacker.example/offers"
        ));
        assert!(!allowed(
            rule,
            "https://air-one.example.attacker.example/offers"
        ));
        assert!(!allowed(rule, "https://air-one.example/offersx"));
        assert!(!allowed(rule, "https://air-one.example/offers/../admin"));
        assert!(!allowed(
            rule,
            "https://air-one.example/offers/%2e%2e/admin"
        ));
        assert!(!allowed(rule, "http://air-one.example/offers"));
        assert!(!allowed(rule, "https://air-one.example:8443/offers"));
        assert!(!allowed(
            rule,
            "https://air-one.example\\@attacker.example/offers"
        ));
    }

    #[test]
    fn encoded_separators_dots_and_path_parameters_are_refused() {
        let rule = "https://a.example/q";
        // Other encoded characters still pass, kept encoded.
        assert!(allowed(rule, "https://a.example/q/a%20b%3f"));
        assert_eq!(
            parse("https://a.example/q/a%20b%3f").map(|u| u.path),
            Ok("/q/a%20b%3F".to_string())
        );
        for (bad, why) in [
            ("https://a.example/q/..%2Fadmin", "an encoded `/` (`%2F`)"),
            ("https://a.example/q/..%2fadmin", "an encoded `/` (`%2f`)"),
            ("https://a.example/q/..%5Cadmin", "an encoded `\\` (`%5C`)"),
            ("https://a.example/q/..%5cadmin", "an encoded `\\` (`%5c`)"),
            ("https://a.example/q/%2E%2E/admin", "an encoded `.` (`%2E`)"),
            ("https://a.example/q/.%2e/admin", "an encoded `.` (`%2e`)"),
            ("https://a.example/q/..%252Fadmin", "an encoded `%` (`%25`)"),
        ] {
            assert_eq!(
                parse(bad).map(|u| u.to_string()).map_err(|e| e.to_string()),
                Err(format!(
                    "a URL path may not contain {why}, which servers read differently"
                )),
                "{bad}"
            );
            assert!(!allowed(rule, bad), "{bad}");
        }
        for bad in [
            "https://a.example/q/..;/admin",
            "https://a.example/q;x=1",
            "https://a.example/q/a;b",
        ] {
            assert_eq!(
                parse(bad).map(|u| u.to_string()),
                Err(UrlError::PathParameter),
                "{bad}"
            );
            assert_eq!(
                UrlError::PathParameter.to_string(),
                "a URL path may not contain `;` (a path parameter, which servers read differently)"
            );
        }
        // In the query, where no path is read, both are the server's affair.
        assert!(allowed(rule, "https://a.example/q?next=..%2Fadmin;x"));
        // A policy's own rule is held to the same form.
        assert_eq!(
            Rule::parse("https://a.example/q%2Fr"),
            Err(UrlError::EncodedSeparator {
                ch: '/',
                hex: "2F".into()
            })
        );
        assert_eq!(
            Rule::parse("https://a.example/q?x=1").map_err(|e| e.to_string()),
            Err("an allow-list entry may not have a query or fragment".into())
        );
    }

    #[test]
    fn over_long_encodings_and_look_alike_separators_are_refused() {
        let rule = "https://a.example/q";
        // Encoded UTF-8 text passes, kept encoded; raw text too.
        assert!(allowed(rule, "https://a.example/q/caf%C3%A9"));
        assert!(allowed(rule, "https://a.example/q/café"));
        for bad in [
            "https://a.example/q/%c0%ae%c0%ae/admin",
            "https://a.example/q/%e0%80%ae%e0%80%ae/admin",
            "https://a.example/q/%c0%af..%c0%afadmin",
            "https://a.example/q/%C3",
            "https://a.example/q/%C3%41",
        ] {
            assert_eq!(
                parse(bad).map(|u| u.path),
                Err(UrlError::EncodedNotText),
                "{bad}"
            );
            assert!(!allowed(rule, bad), "{bad}");
        }
        for (bad, ch) in [
            ("https://a.example/q/\u{FF0E}\u{FF0E}/admin", '\u{FF0E}'),
            ("https://a.example/q/\u{FF0F}../admin", '\u{FF0F}'),
            ("https://a.example/q/\u{2025}/admin", '\u{2025}'),
            ("https://a.example/q/%E2%80%A5/admin", '\u{2025}'),
            ("https://a.example/q/%EF%BC%8E%EF%BC%8E/admin", '\u{FF0E}'),
        ] {
            assert_eq!(
                parse(bad).map(|u| u.path),
                Err(UrlError::LookAlikeSeparator { ch }),
                "{bad}"
            );
            assert!(!allowed(rule, bad), "{bad}");
        }
        assert_eq!(
            UrlError::LookAlikeSeparator { ch: '\u{2025}' }.to_string(),
            "a URL path may not contain `\u{2025}` (U+2025), which servers that fold Unicode read as `.`, `/` or `\\`"
        );
    }

    #[test]
    fn ip_literals_must_be_canonical() {
        assert!(parse("http://127.0.0.1:8080/").is_ok());
        for bad in [
            "http://127.1/",
            "http://0x7f.0.0.1/",
            "http://2130706433/",
            "http://[::1]/",
            "http://01.2.3.4/",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn malformed_urls_are_errors_that_say_why() {
        let found = |s: &str| s.to_string();
        for (bad, why, said) in [
            (
                "ftp://a.example/",
                UrlError::Scheme {
                    found: found("ftp"),
                },
                "expected the scheme `http` or `https`, found `ftp`",
            ),
            (
                "a.example/x",
                UrlError::NoScheme,
                "expected `http://` or `https://` at the start",
            ),
            ("https://", UrlError::NoHost, "expected a host name"),
            (
                "https://a b/",
                UrlError::Whitespace,
                "a URL may not contain spaces or control characters",
            ),
            (
                "https://a\\b/",
                UrlError::Backslash,
                "a URL may not contain `\\`",
            ),
            (
                "https://u@a.example/",
                UrlError::UserInfo,
                "a URL with user information (`user@host`) is not allowed",
            ),
            (
                "https://a.example:0/",
                UrlError::Port { found: found("0") },
                "expected a port from 1 to 65535, found `0`",
            ),
            (
                "https://a.example:99999/",
                UrlError::Port {
                    found: found("99999"),
                },
                "expected a port from 1 to 65535, found `99999`",
            ),
            (
                "https://bücher.example/",
                UrlError::HostCharacters {
                    found: found("bücher.example"),
                },
                "expected a host of ASCII letters, digits, `-` and `.`, found `bücher.example` (write an international name in its `xn--` form)",
            ),
            (
                "https://a..example/",
                UrlError::HostLabels {
                    found: found("a..example"),
                },
                "expected dot-separated labels of 1 to 63 characters, found `a..example`",
            ),
            (
                "http://127.1/",
                UrlError::Ipv4 {
                    found: found("127.1"),
                },
                "expected an IPv4 address as four decimal numbers from 0 to 255, found `127.1`",
            ),
            (
                "http://[::1]:80/",
                UrlError::Ipv6,
                "IPv6 addresses are not supported in URLs here",
            ),
            (
                "https://[2001:db8::1]/x",
                UrlError::Ipv6,
                "IPv6 addresses are not supported in URLs here",
            ),
            (
                "https://a.example/%zz",
                UrlError::PercentHex { found: found("zz") },
                "expected two hexadecimal digits after `%`, found `%zz`",
            ),
        ] {
            let e = parse(bad).err();
            assert_eq!(e.as_ref(), Some(&why), "{bad}");
            assert_eq!(e.map(|e| e.to_string()).as_deref(), Some(said), "{bad}");
        }
    }
}
