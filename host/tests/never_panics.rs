//! Hostile input never panics the policy reader or the URL parser, and
//! what they give back is of the kind promised: random text, and valid
//! policies with random damage, give a policy that grants only host
//! capabilities the text names, or at least one policy error (`E6xxx`)
//! with its labels inside the text; random URLs parse to a URL that prints
//! back to itself, or are refused with a one-line reason; a parsed URL's
//! path holds no encoded separator, dot or `%` and no `;`.

use proptest::prelude::*;
use writ_host::{policy, url};
use writ_lang::types::HOST_CAPABILITIES;

const VALID: &str = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[limits]\ntime = \"5s\"\n\n[grants.Log]\n\n[grants.Http]\nallow = [\"https://air-one.example/offers\"]\ntimeout = \"2s\"\n\n[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 50000\n\n[grants.Records]\nscope = \"self\"\nredact = [\"ssn\"]\n";

/// What `policy::parse` gives back for `text` is of the kind promised: a
/// policy granting only host capabilities that `text` names, or at least
/// one policy error, each with a message and its labels on character
/// boundaries inside `text`.
fn a_policy_or_diagnostics(text: &str) -> Result<(), TestCaseError> {
    match policy::parse(text) {
        Ok(p) => {
            for name in p.granted() {
                prop_assert!(
                    HOST_CAPABILITIES.contains(&name.as_str()),
                    "granted {}",
                    name
                );
                prop_assert!(text.contains(&name), "granted {} from {:?}", name, text);
            }
        }
        Err(diags) => {
            prop_assert!(!diags.is_empty(), "refused without a reason: {:?}", text);
            for d in &diags {
                prop_assert!(d.is_error(), "{:?}", d);
                prop_assert!(
                    d.code.as_str().starts_with("E6"),
                    "not a policy error: {:?}",
                    d
                );
                prop_assert!(!d.message.is_empty(), "{:?}", d);
                for l in &d.labels {
                    prop_assert!(
                        l.span.start <= l.span.end && l.span.end <= text.len(),
                        "a label outside the text: {:?}",
                        d
                    );
                    prop_assert!(
                        text.is_char_boundary(l.span.start) && text.is_char_boundary(l.span.end),
                        "a label inside a character: {:?}",
                        d
                    );
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_text_is_a_policy_or_diagnostics(text in ".{0,300}") {
        a_policy_or_diagnostics(&text)?;
    }

    #[test]
    fn damaged_policies_are_a_policy_or_diagnostics_with_spans_inside(
        at in 0usize..400, cut in 0usize..20, insert in "[\\[\\]\"=a-z0-9 .\n#-]{0,12}"
    ) {
        let mut text = VALID.to_string();
        let at = at.min(text.len());
        let at = (0..=at).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        let end = (at + cut).min(text.len());
        let end = (end..=text.len()).find(|i| text.is_char_boundary(*i)).unwrap_or(text.len());
        text.replace_range(at..end, &insert);
        a_policy_or_diagnostics(&text)?;
    }

    #[test]
    fn random_urls_parse_or_are_refused(u in "(https?://)?[a-zA-Z0-9@:/%.?#\\\\\\[\\]-]{0,40}") {
        match url::parse(&u) {
            Ok(parsed) => {
                // A parsed URL is a plain http(s) URL that prints back to
                // a URL that parses to itself.
                prop_assert!(parsed.scheme == "http" || parsed.scheme == "https", "{:?}", parsed);
                prop_assert!(!parsed.host.is_empty() && parsed.path.starts_with('/'), "{:?}", parsed);
                prop_assert_eq!(url::parse(&parsed.to_string()), Ok(parsed));
            }
            Err(why) => {
                // A refusal says why, on one line.
                let why = why.to_string();
                prop_assert!(!why.is_empty() && !why.contains('\n'), "{:?} for {}", why, u);
            }
        }
    }

    #[test]
    fn parsed_paths_hold_nothing_a_server_reads_another_way(
        path in "(/([a-zA-Z.;]|%[0-9a-fA-F]{2}){0,6}){1,4}"
    ) {
        if let Ok(u) = url::parse(&format!("https://a.example{path}")) {
            let upper = u.path.to_ascii_uppercase();
            for bad in ["%2F", "%5C", "%2E", "%25", ";"] {
                prop_assert!(!upper.contains(bad), "{} from {}", u.path, path);
            }
            prop_assert!(!u.path.split('/').any(|seg| seg == "." || seg == ".."), "{}", u.path);
        }
    }
}
