//! `writ explain CODE`: the entry for one code from `docs/errors.md`, which
//! is embedded in the binary so that the two can never disagree.

use writ_lang::Code;

/// The error reference, as shipped.
pub const ERRORS_MD: &str = include_str!("../docs/errors.md");

/// The section of `docs/errors.md` for `code`: from its `## CODE` heading up
/// to the next heading of the same level.
pub fn explain(code: Code) -> Option<String> {
    let heading = format!("## {}", code.as_str());
    let start = ERRORS_MD.lines().position(|l| l.starts_with(&heading))?;
    let section: Vec<&str> = ERRORS_MD
        .lines()
        .skip(start)
        .enumerate()
        .take_while(|(i, l)| *i == 0 || !l.starts_with("## "))
        .map(|(_, l)| l)
        .collect();
    Some(section.join("\n").trim_end().to_string() + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_documented_with_an_example_and_a_fix() {
        for code in Code::ALL {
            let text =
                explain(*code).unwrap_or_else(|| panic!("{code} has no section in docs/errors.md"));
            assert!(text.contains("```writ"), "{code}: no example");
            assert!(text.contains("**Fix**"), "{code}: no fix");
        }
    }

    #[test]
    fn every_documented_code_exists() {
        for line in ERRORS_MD.lines().filter(|l| l.starts_with("## ")) {
            let code = line
                .trim_start_matches("## ")
                .split(':')
                .next()
                .unwrap_or("");
            assert!(
                Code::parse(code).is_some(),
                "docs/errors.md documents unknown code {code}"
            );
        }
    }
}
