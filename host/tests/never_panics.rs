//! Hostile input never panics the policy reader or the URL parser: random
//! text, and valid policies with random damage, give a policy or
//! diagnostics; random URLs parse or are refused, and a refused URL is
//! never allowed.

use proptest::prelude::*;
use writ_host::{policy, url};

const VALID: &str = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[limits]\ntime = \"5s\"\n\n[grants.Log]\n\n[grants.Http]\nallow = [\"https://air-one.example/offers\"]\ntimeout = \"2s\"\n\n[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 50000\n\n[grants.Records]\nscope = \"self\"\nredact = [\"ssn\"]\n";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_text_is_a_policy_or_diagnostics(text in ".{0,300}") {
        let _ = policy::parse(&text);
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
        if let Err(diags) = policy::parse(&text) {
            prop_assert!(!diags.is_empty());
            for d in &diags {
                for l in &d.labels {
                    prop_assert!(l.span.end <= text.len(), "a label outside the text: {:?}", d);
                }
            }
        }
    }

    #[test]
    fn random_urls_parse_or_are_refused(u in "(https?://)?[a-zA-Z0-9@:/%.?#\\\\\\[\\]-]{0,40}") {
        if let Ok(parsed) = url::parse(&u) {
            // A parsed URL prints back to a URL that parses to itself.
            prop_assert_eq!(url::parse(&parsed.to_string()), Ok(parsed));
        }
    }
}
