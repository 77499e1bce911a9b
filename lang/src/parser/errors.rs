//! chumsky's "expected / found" errors as Writ diagnostics.
//!
//! The message always names what was expected and what was found, in the
//! grammar's own words ("expected an expression, found `)`"); where the found
//! token is a common slip (a loop keyword, `return`, `=` for `==`), the help
//! says what to write instead.

use crate::parser::expected::{ParseError, Pattern, Reason};

use crate::diagnostic::{Code, Diagnostic};
use crate::parser::span;
use crate::token::Token;

/// The most expectations listed in one message.
const MAX_EXPECTED: usize = 6;

fn describe(p: Pattern<'_>) -> Option<String> {
    match p {
        // An error token is never what anyone should write.
        Pattern::Token(Token::Error) => None,
        Pattern::Token(t) => Some(t.to_string()),
        Pattern::Label(l) => Some(l.to_string()),
        Pattern::EndOfInput => Some("end of input".to_string()),
        Pattern::Any => Some("more input".to_string()),
    }
}

/// Tokens that continue an expression like an operator does.
const OPERATORS: &[&str] = &["`.`", "`(`"];

/// Tokens that can start an expression: implied by "an expression".
const EXPRESSION_STARTS: &[&str] = &[
    "`!`", "`-`", "`(`", "`[`", "`{`", "`fn`", "`if`", "`match`", "`handle`",
];

/// Shorten a list of expectations: operators become "an operator", and
/// tokens that start an expression disappear when "an expression" is listed.
fn summarise(mut expected: Vec<String>) -> Vec<String> {
    if expected.iter().any(|e| e == "an expression") {
        expected.retain(|e| !EXPRESSION_STARTS.contains(&e.as_str()));
    }
    // After an operand, `(` (a call) and `.` (a field) continue it just as
    // an operator would.
    let after_expression = expected.iter().any(|e| e == "an operator");
    if after_expression {
        expected.retain(|e| !OPERATORS.contains(&e.as_str()));
    }
    // Where a statement could end or begin, list that rather than every
    // token that can begin one.
    let statement_boundary =
        expected.iter().any(|e| e == "`;`") && expected.iter().any(|e| e == "an expression");
    if statement_boundary {
        expected.retain(|e| {
            !matches!(
                e.as_str(),
                "`;`" | "`let`" | "`type`" | "`effect`" | "`fn`" | "an expression" | "a block"
            )
        });
        expected.push(if after_expression {
            "the end of the statement".to_string()
        } else {
            // At the start of a block or file.
            "a statement".to_string()
        });
    }
    expected
}

/// Joins `["a", "b", "c"]` as "a, b or c".
fn one_of(mut items: Vec<String>) -> String {
    items.sort();
    items.dedup();
    if items.len() > MAX_EXPECTED {
        items.truncate(MAX_EXPECTED);
        items.push("…".to_string());
    }
    match items.len() {
        0 => "something else".to_string(),
        1 => items.remove(0),
        n => {
            let last = items.remove(n - 1);
            format!("{} or {last}", items.join(", "))
        }
    }
}

/// Help for a reserved word: what Writ offers instead.
fn reserved_help(word: &str) -> String {
    match word {
        "for" | "while" | "loop" | "break" | "continue" | "do" => {
            format!("Writ has no `{word}`: use `list.map`, `list.filter`, `list.fold` or a recursive function")
        }
        "mut" | "var" | "const" => {
            "values never change in Writ: bind a new value with `let`".to_string()
        }
        "pub" => "Writ has no visibility modifiers: declare with `fn`, `type` or `effect`".to_string(),
        "import" | "use" | "mod" => {
            "no imports are needed: the standard library is always in scope as `list.`, `str.`, `map.` ...".to_string()
        }
        "struct" | "trait" | "enum" | "class" => {
            "declare a record with `type Name = { field: Type }`, a sum type with `type Name = A | B(Int)`".to_string()
        }
        "and" | "or" | "not" => {
            "the logical operators are `&&`, `||` and `!`".to_string()
        }
        "elif" => "write `else if`".to_string(),
        "function" | "def" => {
            "declare a function with `fn name(x: Int) -> Int { ... }`".to_string()
        }
        "null" | "nil" => {
            "Writ has no null: use an `Option`, `None` or `Some(x)`".to_string()
        }
        "as" => "Writ has no `as` casts: convert values with standard-library functions".to_string(),
        "self" => "Writ has no methods or `self`: pass the value as an ordinary parameter".to_string(),
        "async" | "await" | "yield" => format!(
            "`{word}` is reserved (Writ has no async or generators): declare an effect and handle it; its operation may be named `{word}`, as in `effect Gen {{ fn {word}(x: Int) }}` and `Gen.{word}(1)`"
        ),
        _ => format!("`{word}` is reserved for future use and cannot be used here"),
    }
}

/// The code and help for an unexpected `found` token, given what was
/// `raw`ly expected; the help covers tokens that usually mean the writer
/// expected another language.
fn help_for(found: Option<&Token>, raw: &[String]) -> (Code, Option<String>) {
    let wanted = |what: &str| raw.iter().any(|e| e == what);
    let Some(found) = found else {
        let help = "the input ended in the middle of a construct; finish it or remove it";
        return (Code::UnexpectedToken, Some(help.to_string()));
    };
    if let Token::Reserved(word) = found {
        return (Code::ReservedWord, Some(reserved_help(word)));
    }
    // `-> Int / Log`: a row of one effect is still written in braces.
    if let Token::Upper(name) = found
        && raw.iter().any(|e| e.starts_with("an effect row"))
    {
        let help =
            format!("an effect row is written in braces, even with one effect: `/ {{{name}}}`");
        return (Code::UnexpectedToken, Some(help));
    }
    // `type shape = ...`, `effect ask { ... }`.
    if let Token::Lower(name) = found
        && wanted("a capitalised name")
    {
        let mut chars = name.chars();
        let capital: String = chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        let help = format!(
            "names of types, effects and constructors start with a capital letter: `{capital}`"
        );
        return (Code::UnexpectedToken, Some(help));
    }
    let help = match found {
        Token::Return => "Writ has no `return` statement: a block's value is its last expression",
        Token::Assign if wanted("an operator") || wanted("an expression") => {
            "to compare, write `==`; to name a new value, write `let name = ...` (values never change, so there is no assignment)"
        }
        Token::Bar if wanted("`=>`") => "Writ has no or-patterns: write one arm for each pattern",
        Token::FatArrow if wanted("`->`") && wanted("a block") => {
            "the return type follows `->` and the body is a block: `fn f(x: Int) -> Int { x + 1 }`, `fn(x) { x + 1 }`; `=>` only follows a pattern, in `match` arms and handler clauses"
        }
        Token::FatArrow if wanted("`->`") => {
            "write the return type after `->`: `fn f(x: Int) -> Int { ... }`"
        }
        // An arm without a `,` before one that starts with an operator
        // (`-1 => ...`): that line went on with the arm before
        // (`"zero" - 1`).
        Token::FatArrow if wanted("an operator") && wanted("`,`") && wanted("a pattern") => {
            "the arm before this one has no `,` at its end, so this line went on with it (a line that starts with an operator, such as `-` in `-1`, continues the one before): end that arm with `,`"
        }
        Token::FatArrow if wanted("an expression") || wanted("a block") => {
            "a function value is written `fn(x) { x + 1 }`; `=>` only follows a pattern, in `match` arms and handler clauses"
        }
        Token::FatArrow if wanted("an operator") => {
            "a function value is written `fn(x) { x + 1 }`; `=>` only follows a pattern, in `match` arms and handler clauses"
        }
        Token::Lt if wanted("`[`") => {
            "type arguments are written in brackets: `List[Int]`, `Map[Str, Int]`"
        }
        Token::Lower(_) | Token::Underscore if wanted("`=>`") && wanted("`(`") => {
            "a constructor's fields are written in parentheses: `Some(x) => ...`"
        }
        Token::LParen | Token::LParenLine | Token::LBrace | Token::LBracket
            if wanted("a lower-case name") && wanted("`_`") =>
        {
            "a named function's parameters are names: take the argument apart in the body, `let (a, b) = pair`; a lambda may take a pattern, `fn((a, b)) { a + b }`"
        }
        Token::Comma if wanted("`)`") && wanted("an operator") => {
            "a handler has one state: hold several values in a tuple, `with (st = (a, b))`, and take it apart with `let (a, b) = st`"
        }
        Token::Bar if wanted("an operator") => "for logical or, write `||`",
        Token::Bar if wanted("an expression") => "a function value is written `fn(x) { x + 1 }`",
        Token::Upper(_) if wanted("a field name") => {
            "a constructor is never qualified by a namespace or its type: write it alone (`Null`, `Some(x)`, `Active`)"
        }
        Token::Upper(_) if wanted("a lower-case name") => {
            "names of values, parameters and type parameters start with a lower-case letter: `[a]`, `x`"
        }
        Token::Int(_) if wanted("a field name") => {
            "tuples have no numbered fields: take them apart with `let (a, b) = pair`"
        }
        Token::Dot if wanted("an expression") => {
            "a number starts with a digit: write `0.5`, not `.5`"
        }
        Token::Colon if wanted("an operator") => {
            "a record's field names are bare, `{ a: 1 }`, not `{ \"a\": 1 }` (keys that are data make a `Map`: `map.from_list([(\"a\", 1)])`); a namespace's members follow `.`: `list.length`, not `list::length`"
        }
        Token::Colon if wanted("`->`") => {
            "write the return type after `->`: `fn f(x: Int) -> Int { ... }`"
        }
        Token::StrMid(_) | Token::StrTail(_) if wanted("an expression") => {
            "write an expression inside `${}`, or remove the empty `${}`"
        }
        Token::Else => {
            "`else` can only follow the block of an `if`: `if cond { ... } else { ... }`"
        }
        Token::Semi => "`;` can only end a statement",
        _ => return (Code::UnexpectedToken, None),
    };
    (Code::UnexpectedToken, Some(help.to_string()))
}

/// The help for a field name expected after a number and a `.` (`1.`).
pub(crate) const TRAILING_DOT: &str = "a number has digits after its `.`: write `1.0`, not `1.` (a `.` after a value starts a field name)";

/// Whether `before` (the source before an error) ends with a number and
/// a `.`, as `1.` does, and not with a name or a field access (`v2.`).
pub(crate) fn after_trailing_dot(before: &str) -> bool {
    let Some(rest) = before.trim_end().strip_suffix('.') else {
        return false;
    };
    let head = rest.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_');
    let number = rest.get(head.len()..).unwrap_or("");
    number.starts_with(|c: char| c.is_ascii_digit())
        && !head.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
}

/// The name, if `before` (the source before an unexpected `,`) ends with
/// `{` and one lower-case name, as `{ name, age }` does.
pub(crate) fn block_of_one_name(before: &str) -> Option<&str> {
    let before = before.trim_end();
    let head = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    let name = before.get(head.len()..)?;
    let first_lower = name.starts_with(|c: char| c.is_lowercase() || c == '_');
    (first_lower && head.trim_end().ends_with('{')).then_some(name)
}

/// Convert one chumsky error. `eoi` is the source length.
pub(crate) fn to_diagnostic(err: &ParseError<'_>, eoi: usize) -> Diagnostic {
    let at = span(err.span());
    match err.reason() {
        Reason::Custom(msg) => {
            Diagnostic::new(Code::UnexpectedToken, msg.to_string()).with_primary(at, "")
        }
        Reason::ExpectedFound { expected, found } => {
            let raw: Vec<String> = expected.patterns().filter_map(describe).collect();
            let raw_for_help = raw.clone();
            let expected = summarise(raw);
            let found = found.token();
            let found_text = match found {
                Some(t) => t.to_string(),
                None => "end of input".to_string(),
            };
            let (code, help) = help_for(found, &raw_for_help);
            let message = if expected.is_empty() {
                format!("unexpected {found_text}")
            } else {
                format!("expected {}, found {found_text}", one_of(expected))
            };
            let label = if found.is_none() || at.start >= eoi {
                "input ends here".to_string()
            } else {
                let noun = found_text
                    .strip_prefix("a ")
                    .or_else(|| found_text.strip_prefix("the "))
                    .unwrap_or(&found_text);
                format!("unexpected {noun}")
            };
            let d = Diagnostic::new(code, message).with_primary(at, label);
            match help {
                Some(h) => d.with_help(h),
                None => d,
            }
        }
    }
}
