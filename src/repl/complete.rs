//! Tab completion: `:commands`, file names after `:load` and `:policy`,
//! `namespace.member` and `Effect.op`, and otherwise the names in scope,
//! namespaces, types, constructors, effects and keywords.
//!
//! Invariants: [`complete`] is a pure function of the words known and the
//! line, so it is tested without a terminal; the words are refreshed after
//! every input.

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

/// The REPL's commands, with what each does (for `:help` and completion).
pub const COMMANDS: &[(&str, &str)] = &[
    (":help", "show this help"),
    (
        ":type EXPR",
        "the type of EXPR and the effects it performs, without running it",
    ),
    (
        ":effects EXPR",
        "the manifest of EXPR: each effect, whether it is granted, and where it is performed",
    ),
    (":grants", "what the current policy grants, with scopes"),
    (
        ":plan EXPR",
        "what EXPR would do: its reads performed, its acts (payments, posts) shown, not carried out",
    ),
    (
        ":policy [FILE|none]",
        "show the policy, or switch to FILE (or to none: only Log)",
    ),
    (
        ":load FILE",
        "check and run a file as one input; its definitions stay",
    ),
    (":reset", "forget every definition"),
    (
        ":limits [name=value ...]",
        "show the limits each input runs under, or change them",
    ),
    (":audit [N]", "the last N audit records (10 by default)"),
    (":quit", "leave (so does Ctrl-D)"),
];

const KEYWORDS: &[&str] = &[
    "fn", "let", "type", "effect", "match", "if", "else", "handle", "with", "return", "true",
    "false", "resume",
];

/// What completion knows: refreshed from the session after each input.
#[derive(Clone, Debug, Default)]
pub struct Words {
    /// Functions and values defined in the session.
    pub names: Vec<String>,
    /// Namespaces with their members.
    pub namespaces: Vec<(String, Vec<String>)>,
    /// Effects with their operations.
    pub effects: Vec<(String, Vec<String>)>,
    /// Types and constructors.
    pub types: Vec<String>,
}

/// The start of the word being completed and its candidates, for the
/// cursor at byte `pos` of `line`. `None` means "complete a file name".
pub fn complete(words: &Words, line: &str, pos: usize) -> Option<(usize, Vec<String>)> {
    let before = line.get(..pos).unwrap_or(line);
    let trimmed = before.trim_start();
    if let Some(rest) = trimmed.strip_prefix(':') {
        if !rest.contains(char::is_whitespace) {
            let start = before.len() - trimmed.len();
            // A command that takes an argument is completed with the space
            // after it, so that what is typed next is the argument.
            let mut c: Vec<String> = COMMANDS
                .iter()
                .map(|(c, _)| match c.split_once(' ') {
                    Some((name, _)) => format!("{name} "),
                    None => c.to_string(),
                })
                .filter(|c| c.starts_with(trimmed))
                .collect();
            c.sort();
            c.dedup();
            return Some((start, c));
        }
        let command = rest.split_whitespace().next().unwrap_or("");
        if matches!(command, "load" | "policy") {
            return None;
        }
    }
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_' || *c == '.')
        .last()
        .map_or(pos, |(i, _)| i);
    let word = before.get(start..).unwrap_or("");
    let mut out: Vec<String> = Vec::new();
    if let Some((head, tail)) = word.split_once('.') {
        let members = words
            .namespaces
            .iter()
            .chain(words.effects.iter())
            .find(|(n, _)| n == head)
            .map(|(_, m)| m.as_slice())
            .unwrap_or(&[]);
        out.extend(
            members
                .iter()
                .filter(|m| m.starts_with(tail))
                .map(|m| format!("{head}.{m}")),
        );
    } else if !word.is_empty() {
        let all = words
            .names
            .iter()
            .chain(words.types.iter())
            .map(String::as_str)
            .chain(words.namespaces.iter().map(|(n, _)| n.as_str()))
            .chain(words.effects.iter().map(|(n, _)| n.as_str()))
            .chain(KEYWORDS.iter().copied());
        out.extend(all.filter(|w| w.starts_with(word)).map(str::to_string));
    }
    out.sort();
    out.dedup();
    Some((start, out))
}

/// The rustyline helper: completion only (no hints, colours or
/// validation; the REPL itself decides when an input is finished).
pub struct ReplHelper {
    /// What can be completed.
    pub words: Words,
    files: FilenameCompleter,
}

impl ReplHelper {
    /// A helper knowing `words`.
    pub fn new(words: Words) -> ReplHelper {
        ReplHelper {
            words,
            files: FilenameCompleter::new(),
        }
    }
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        match complete(&self.words, line, pos) {
            Some((start, words)) => Ok((
                start,
                words
                    .into_iter()
                    .map(|w| Pair {
                        display: w.clone(),
                        replacement: w,
                    })
                    .collect(),
            )),
            None => self.files.complete(line, pos, ctx),
        }
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Words {
        Words {
            names: vec!["double".into(), "data".into()],
            namespaces: vec![(
                "list".into(),
                vec!["map".into(), "max".into(), "sum".into()],
            )],
            effects: vec![("Log".into(), vec!["info".into()])],
            types: vec!["Shape".into(), "Some".into()],
        }
    }

    fn candidates(line: &str) -> Option<(usize, Vec<String>)> {
        complete(&words(), line, line.len())
    }

    #[test]
    fn commands_members_and_names() {
        assert_eq!(candidates(":ty"), Some((0, vec![":type ".to_string()])));
        assert_eq!(candidates(":q"), Some((0, vec![":quit".to_string()])));
        assert_eq!(
            candidates("  :l"),
            Some((2, vec![":limits ".to_string(), ":load ".to_string()]))
        );
        assert_eq!(
            candidates("list.ma"),
            Some((0, vec!["list.map".to_string(), "list.max".to_string()]))
        );
        assert_eq!(
            candidates("1 + Log.i"),
            Some((4, vec!["Log.info".to_string()]))
        );
        assert_eq!(
            candidates("let y = d"),
            Some((8, vec!["data".to_string(), "double".to_string()]))
        );
        assert_eq!(
            candidates("S"),
            Some((0, vec!["Shape".to_string(), "Some".to_string()]))
        );
        assert_eq!(candidates("ha"), Some((0, vec!["handle".to_string()])));
        assert_eq!(candidates("nothing.x"), Some((0, Vec::new())));
        assert_eq!(candidates(""), Some((0, Vec::new())));
    }

    #[test]
    fn file_names_after_load_and_policy() {
        assert_eq!(candidates(":load exa"), None);
        assert_eq!(candidates(":policy "), None);
        assert_eq!(candidates(":type li"), Some((6, vec!["list".to_string()])));
    }

    #[test]
    fn a_cursor_inside_a_multibyte_text_does_not_panic() {
        let line = "\"é\" ++ li";
        for pos in 0..=line.len() {
            // What the editor replaces starts on a character of the line.
            if let Some((start, _)) = complete(&words(), line, pos) {
                assert!(line.is_char_boundary(start), "{pos}: {start}");
            }
        }
        // At the end, the word before the cursor is completed.
        assert_eq!(
            complete(&words(), line, line.len()),
            Some((8, vec!["list".to_string()]))
        );
    }
}
