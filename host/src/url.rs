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
//! them). So `/q/..%2Fadmin` never passes a rule for `/q`.
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

/// Parse and normalise `text`; the error says what was wrong.
pub fn parse(text: &str) -> Result<Url, String> {
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("a URL may not contain spaces or control characters".into());
    }
    if text.contains('\\') {
        return Err("a URL may not contain `\\`".into());
    }
    let (scheme, rest) = text
        .split_once("://")
        .ok_or("expected `http://` or `https://` at the start")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(format!(
            "expected the scheme `http` or `https`, found `{scheme}`"
        ));
    }
    let rest = rest.split_once('#').map_or(rest, |(r, _)| r);
    let (authority, path_query) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.contains('@') {
        return Err("a URL with user information (`user@host`) is not allowed".into());
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => {
            let port: u16 = p
                .parse()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| format!("expected a port from 1 to 65535, found `{p}`"))?;
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

fn normalise_host(host: &str) -> Result<String, String> {
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    if host.is_empty() {
        return Err("expected a host name".into());
    }
    if host.starts_with('[') {
        return Err("IPv6 addresses are not supported in URLs here".into());
    }
    if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
    {
        return Err(format!(
            "expected a host of ASCII letters, digits, `-` and `.`, found `{host}` (write an international name in its `xn--` form)"
        ));
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.iter().any(|l| l.is_empty() || l.len() > 63) {
        return Err(format!(
            "expected dot-separated labels of 1 to 63 characters, found `{host}`"
        ));
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
            return Err(format!(
                "expected an IPv4 address as four decimal numbers from 0 to 255, found `{host}`"
            ));
        }
    }
    Ok(host)
}

/// Decode percent-encoded unreserved characters, upper-case the hex of the
/// others, and resolve `.` and `..` segments; refuse what a server could
/// read as another path (see the module's documentation).
fn normalise_path(path: &str) -> Result<String, String> {
    if path.contains(';') {
        return Err(
            "a URL path may not contain `;` (a path parameter, which servers read differently)"
                .into(),
        );
    }
    let mut decoded = String::new();
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            decoded.push(c);
            continue;
        }
        let hex: String = chars.by_ref().take(2).collect();
        let byte = u8::from_str_radix(&hex, 16)
            .ok()
            .filter(|_| hex.len() == 2)
            .ok_or_else(|| format!("expected two hexadecimal digits after `%`, found `%{hex}`"))?;
        let ch = char::from(byte);
        if matches!(ch, '/' | '\\' | '.' | '%') {
            return Err(format!(
                "a URL path may not contain an encoded `{ch}` (`%{hex}`), which servers read differently"
            ));
        }
        if ch.is_ascii_alphanumeric() || matches!(ch, '-' | '.' | '_' | '~') {
            decoded.push(ch);
        } else {
            decoded.push_str(&format!("%{byte:02X}"));
        }
    }
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
    pub fn parse(text: &str) -> Result<Rule, String> {
        let url = parse(text)?;
        if !url.query.is_empty() || text.contains('#') {
            return Err("an allow-list entry may not have a query or fragment".into());
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
                parse(bad).map(|u| u.to_string()),
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
                Err(
                    "a URL path may not contain `;` (a path parameter, which servers read differently)"
                        .to_string()
                ),
                "{bad}"
            );
        }
        // In the query, where no path is read, both are the server's affair.
        assert!(allowed(rule, "https://a.example/q?next=..%2Fadmin;x"));
        // A policy's own rule is held to the same form.
        assert!(Rule::parse("https://a.example/q%2Fr").is_err());
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
    fn malformed_urls_are_errors() {
        for bad in [
            "ftp://a.example/",
            "a.example/x",
            "https://",
            "https://a b/",
            "https://a.example:0/",
            "https://a.example:99999/",
            "https://bücher.example/",
            "https://a.example/%zz",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
