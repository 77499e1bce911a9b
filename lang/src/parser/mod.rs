//! Tokens → AST, with chumsky.
//!
//! The pipeline for one source text is [`parse`]: lex, balance brackets
//! ([`crate::delimiters`]), drop doc comments that document nothing, then run
//! the grammar. Every stage reports into one list of diagnostics, and the
//! grammar recovers at statement and item boundaries, so one run reports
//! every independent syntax error and still returns the partial program.
//!
//! Layout: [`grammar`] holds the expression, block and statement rules;
//! [`items`] the top-level declarations; [`patterns`] and [`types`] their own
//! sub-languages; [`errors`] turns chumsky's errors into diagnostics.
//!
//! Invariants: [`parse`] never panics and always returns a [`Program`]; a
//! syntax error located at a token that an earlier stage already reported
//! (an error token, or a closer the bracket balancer inserted) is not
//! reported again.

mod errors;
mod expected;
mod grammar;
mod items;
mod operators;
mod patterns;
mod separators;
mod types;

use chumsky::input::{Checkpoint, Cursor, Input as _, MappedInput};
use chumsky::inspector::Inspector;
use chumsky::prelude::*;
pub(crate) use grammar::continues_line;

use crate::ast::{Ident, Program};
use crate::delimiters;
use crate::diagnostic::{Code, Diagnostic, sort_and_dedup};
use crate::lexer;
use crate::span::{LineIndex, Span};
use crate::token::Token;

/// The input type every rule reads: tokens with chumsky spans.
pub(crate) type Tokens<'t> = MappedInput<'t, Token, SimpleSpan, &'t [(Token, SimpleSpan)]>;

/// Parser extras: errors that record expectations without allocating
/// ([`expected::ParseError`]), and the [`ParseState`].
pub(crate) type Extra<'t> = extra::Full<expected::ParseError<'t>, ParseState<'t>, ()>;

/// What rules can read and write while parsing: the diagnostics they report
/// directly (for errors that are not "unexpected token"), rewound with the
/// rule on backtracking, and where the source's line breaks are.
#[derive(Debug)]
pub(crate) struct ParseState<'t> {
    /// Diagnostics reported by rules.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The source's lines.
    lines: LineIndex<'t>,
    /// Start offsets of the tokens that are the first on their line.
    line_starts: Vec<usize>,
    /// Start offsets of the lines on which the lexer or the bracket
    /// balancer reported something.
    damaged_lines: Vec<usize>,
    /// How many times the grammar has recovered from a syntax error (see
    /// [`after_recovery`]), and where it stopped reading once there were
    /// [`MAX_RECOVERIES`]. Both are rewound with the rule on backtracking.
    recoveries: usize,
    stopped_at: Option<usize>,
    /// The source text the spans index into.
    src: &'t str,
    /// Start offsets of the `[` tokens written directly after a name, a
    /// `)`, a `]` or a string, with no space between: indexing, as other
    /// languages write it.
    tight_brackets: Vec<usize>,
    /// Start offsets of the names `f` and `r` written directly before a
    /// string (`f"{n}"`): another language's string prefix.
    string_prefixes: Vec<usize>,
    /// Start offsets of the keywords of other languages (`try`, `switch`,
    /// `lambda`) reported as such: the rest of their line is not Writ, so
    /// its syntax errors are not reported.
    pub(crate) foreign_words: Vec<usize>,
}

impl<'t> ParseState<'t> {
    /// Whether the token starting at `offset` is the first on its line.
    pub(crate) fn starts_line(&self, offset: usize) -> bool {
        self.line_starts.binary_search(&offset).is_ok()
    }

    /// Whether the line holding `offset` has an earlier stage's diagnostic.
    pub(crate) fn line_damaged(&self, offset: usize) -> bool {
        let line_start = self.line_start_of(offset);
        self.damaged_lines.binary_search(&line_start).is_ok()
    }

    /// The offset where the line holding `offset` starts.
    pub(crate) fn line_start_of(&self, offset: usize) -> usize {
        self.lines.line_start(offset)
    }

    /// The source text of `s` (empty if `s` is not a range of it).
    pub(crate) fn text(&self, s: Span) -> &'t str {
        self.src.get(s.start..s.end).unwrap_or("")
    }

    /// Whether the `[` starting at `offset` directly follows a name, `)`,
    /// `]` or a string (`xs[0]`, `m["a"]`): an attempt at indexing.
    pub(crate) fn tight_bracket(&self, offset: usize) -> bool {
        self.tight_brackets.binary_search(&offset).is_ok()
    }

    /// Whether the name starting at `offset` is a string prefix such as
    /// the `f` of `f"{n}"`.
    pub(crate) fn string_prefix(&self, offset: usize) -> bool {
        self.string_prefixes.binary_search(&offset).is_ok()
    }

    /// Whether a line break lies between offsets `from` and `to`.
    pub(crate) fn line_break_between(&self, from: usize, to: usize) -> bool {
        self.lines.line_number(to) > self.lines.line_number(from)
    }
}

impl<'t> Inspector<'t, Tokens<'t>> for ParseState<'t> {
    type Checkpoint = (usize, usize, Option<usize>);
    fn on_token(&mut self, _: &Token) {}
    fn on_save<'parse>(&self, _: &Cursor<'t, 'parse, Tokens<'t>>) -> Self::Checkpoint {
        (self.diagnostics.len(), self.recoveries, self.stopped_at)
    }
    fn on_rewind<'parse>(&mut self, cp: &Checkpoint<'t, 'parse, Tokens<'t>, Self::Checkpoint>) {
        let (diagnostics, recoveries, stopped_at) = *cp.inspector();
        self.diagnostics.truncate(diagnostics);
        self.recoveries = recoveries;
        self.stopped_at = stopped_at;
    }
}

/// The most recoveries from syntax errors in one parse. Each recovery
/// after this many skips the rest of its bracket (or of the file), so that
/// a file made of errors costs about as much to parse as a correct one;
/// it is ten times [`MAX_DIAGNOSTICS`], so that everything shown is found
/// before the parser stops.
pub(crate) const MAX_RECOVERIES: usize = 1000;

/// Runs after each recovery (the skipping of a damaged statement, item,
/// list element or match arm): counts it, and past [`MAX_RECOVERIES`]
/// skips the rest of the tokens inside the current brackets (or up to the
/// end of the input), noting where reading stopped.
pub(crate) fn after_recovery<'t>() -> impl P<'t, ()> {
    custom(
        |inp: &mut chumsky::input::InputRef<'t, '_, Tokens<'t>, Extra<'t>>| {
            let state = inp.state();
            state.recoveries += 1;
            if state.recoveries <= MAX_RECOVERIES {
                return Ok(());
            }
            let mut depth = 0usize;
            loop {
                match inp.peek() {
                    None => break,
                    Some(t) if t.is_close() => {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    }
                    Some(t) if t.is_open() => depth += 1,
                    Some(_) => {}
                }
                let here = inp.cursor();
                inp.skip();
                let at = inp.span_since(&here).start;
                let state = inp.state();
                if state.stopped_at.is_none() {
                    state.stopped_at = Some(at);
                }
            }
            Ok(())
        },
    )
}

/// Shorthand for "a parser of `O` over Writ tokens".
pub(crate) trait P<'t, O>: Parser<'t, Tokens<'t>, O, Extra<'t>> + Clone + 't {}
impl<'t, O, T: Parser<'t, Tokens<'t>, O, Extra<'t>> + Clone + 't> P<'t, O> for T {}

/// A chumsky span as a Writ span.
pub(crate) fn span(s: SimpleSpan) -> Span {
    Span::new(s.start, s.end)
}

/// A lower-case identifier.
pub(crate) fn lower<'t>() -> impl P<'t, Ident> {
    select! { Token::Lower(name) = e => Ident { name, span: span(e.span()) } }
        .labelled("a lower-case name")
}

/// A keyword or reserved word used as a name where nothing else can stand.
fn keyword_as_name<'t>() -> impl P<'t, Ident> {
    select! {
        Token::Fn => "fn".to_string(),
        Token::Let => "let".to_string(),
        Token::Type => "type".to_string(),
        Token::Effect => "effect".to_string(),
        Token::Match => "match".to_string(),
        Token::If => "if".to_string(),
        Token::Else => "else".to_string(),
        Token::Handle => "handle".to_string(),
        Token::With => "with".to_string(),
        Token::Return => "return".to_string(),
        Token::Reserved(word) => word,
    }
    .map_with(|name, e| Ident {
        name,
        span: span(e.span()),
    })
}

/// A record field's name: a lower-case name, or a keyword or reserved word
/// (data from the outside world has fields named `type`, `match`, `for`...,
/// and after `.` or before `:` in a record there is no ambiguity).
pub(crate) fn field_name<'t>() -> impl P<'t, Ident> {
    lower().or(keyword_as_name()).labelled("a field name")
}

/// An operation's name: a lower-case name, or a keyword or reserved word
/// (`effect Yield { fn yield(x: Int) }`, `Yield.yield(1)`), which after
/// `fn` in an effect and after `Effect.` can only name an operation.
pub(crate) fn operation_name<'t>() -> impl P<'t, Ident> {
    lower().or(keyword_as_name()).labelled("a lower-case name")
}

/// An upper-case identifier.
pub(crate) fn upper<'t>() -> impl P<'t, Ident> {
    select! { Token::Upper(name) = e => Ident { name, span: span(e.span()) } }
        .labelled("a capitalised name")
}

/// `(` whether or not it starts a line.
pub(crate) fn lparen<'t>() -> impl P<'t, ()> {
    just(Token::LParen)
        .or(just(Token::LParenLine))
        .ignored()
        .labelled("`(`")
}

/// `///` comments before an item, joined by newlines.
pub(crate) fn doc<'t>() -> impl P<'t, Option<String>> {
    select! { Token::DocComment(text) => text }
        .repeated()
        .collect::<Vec<String>>()
        .map(|lines| {
            if lines.is_empty() {
                None
            } else {
                Some(lines.join("\n"))
            }
        })
}

/// The result of parsing one source text.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// Everything that could be built; unparseable parts are `Error` nodes
    /// or are missing.
    pub program: Program,
    /// Every lexical and syntax diagnostic, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Keep a doc comment only where it documents a declaration (before `type`,
/// `effect` or `fn name`, possibly after other doc comments).
fn attach_doc_comments(tokens: Vec<(Token, Span)>) -> Vec<(Token, Span)> {
    let mut keep = vec![false; tokens.len()];
    let mut documented = false;
    for i in (0..tokens.len()).rev() {
        let Some((tok, _)) = tokens.get(i) else {
            continue;
        };
        match tok {
            Token::DocComment(_) => {
                if let Some(k) = keep.get_mut(i) {
                    *k = documented;
                }
            }
            Token::Type | Token::Effect => documented = true,
            Token::Fn => {
                documented = matches!(
                    tokens.get(i + 1),
                    Some((Token::Lower(_) | Token::Reserved(_), _))
                )
            }
            _ => documented = false,
        }
        if !matches!(tok, Token::DocComment(_))
            && let Some(k) = keep.get_mut(i)
        {
            *k = true;
        }
    }
    tokens
        .into_iter()
        .zip(keep)
        .filter_map(|(t, k)| k.then_some(t))
        .collect()
}

/// Stack reserved for the grammar, which recurses once per nesting level
/// (several frames per level, large ones in unoptimised builds). The
/// bracket balancer bounds the nesting, so this bounds the stack: the
/// deepest accepted inputs use about 60 MiB in a debug build, far less in a
/// release build. The memory is reserved, and only touched as deep input
/// needs it.
const PARSER_STACK_BYTES: usize = 1 << 28;

/// Below this much remaining stack, the parser moves to a stack of its own.
const PARSER_RED_ZONE: usize = 1 << 26;

/// A line does not start anew when the line before it ends with one of
/// these: the construct goes on.
pub(crate) fn expects_more(tok: &Token) -> bool {
    tok.is_open()
        || tok.is_binary_operator()
        || matches!(
            tok,
            Token::Comma
                | Token::Colon
                | Token::Dot
                | Token::DotDot
                | Token::Arrow
                | Token::FatArrow
                | Token::Assign
                | Token::Bar
                | Token::Bang
                | Token::StrHead(_)
                | Token::StrMid(_)
        )
}

/// Start offsets of the tokens that begin a new line of their own: first on
/// their line, after a line that does not end by expecting more.
fn line_starts(src: &str, tokens: &[(Token, SimpleSpan)]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut prev: Option<&(Token, SimpleSpan)> = None;
    for t in tokens {
        let (_, s) = t;
        let starts_line = match prev {
            None => true,
            Some((p, ps)) => {
                !expects_more(p)
                    && src
                        .get(ps.end..s.start)
                        .is_some_and(|gap| gap.contains('\n'))
            }
        };
        if starts_line {
            starts.push(s.start);
        }
        prev = Some(t);
    }
    starts
}

/// Start offsets of the `[` tokens that touch the token before them, when
/// that token ends a value: a name, `)`, `]` or a string.
fn tight_brackets(tokens: &[(Token, SimpleSpan)]) -> Vec<usize> {
    tokens
        .windows(2)
        .filter_map(|pair| match pair {
            [(before, b), (Token::LBracket, s)]
                if b.end == s.start
                    && matches!(
                        before,
                        Token::Lower(_)
                            | Token::RParen
                            | Token::RBracket
                            | Token::Str(_)
                            | Token::StrTail(_)
                    ) =>
            {
                Some(s.start)
            }
            _ => None,
        })
        .collect()
}

/// Start offsets of the names `f` and `r` that touch a string after them
/// (`f"{n}"`, `r"\d"`): string prefixes of other languages.
fn string_prefixes(tokens: &[(Token, SimpleSpan)]) -> Vec<usize> {
    tokens
        .windows(2)
        .filter_map(|pair| match pair {
            [
                (Token::Lower(name), b),
                (Token::Str(_) | Token::StrHead(_), s),
            ] if b.end == s.start && (name == "f" || name == "r") => Some(b.start),
            _ => None,
        })
        .collect()
}

/// The most diagnostics reported for one file; past it, the last one says
/// how many more there were.
pub(crate) const MAX_DIAGNOSTICS: usize = 100;

/// Keep the first [`MAX_DIAGNOSTICS`] diagnostics, noting how many more
/// (counting `unreported` ones found but never built, which all sort after
/// those kept).
fn cap(diagnostics: &mut Vec<Diagnostic>, unreported: usize) {
    let total = diagnostics.len().saturating_add(unreported);
    if total > MAX_DIAGNOSTICS {
        let more = total - MAX_DIAGNOSTICS;
        diagnostics.truncate(MAX_DIAGNOSTICS);
        if let Some(last) = diagnostics.last_mut() {
            last.notes.push(format!(
                "{more} more problems were found after this one and are not shown; fix these first"
            ));
        }
    }
}

/// Parse a whole source text. Never fails: see [`Parsed`].
pub fn parse(src: &str) -> Parsed {
    stacker::maybe_grow(PARSER_RED_ZONE, PARSER_STACK_BYTES, || {
        parse_on_stack(src, false, 0)
    })
}

/// Parse `src` as the text that starts at byte `base` of a longer one:
/// every span is `base` further on than [`parse`] would give. A session
/// (the REPL) parses each input this way, so that the spans of all its
/// inputs are distinct and a span says which input it is in.
pub fn parse_at(src: &str, base: usize) -> Parsed {
    // The text before is blank to the lexer and parser: a line of spaces
    // (no line break, so the input's first line still starts a statement).
    let mut padded = String::with_capacity(base + src.len());
    padded.extend(std::iter::repeat_n(' ', base));
    padded.push_str(src);
    stacker::maybe_grow(PARSER_RED_ZONE, PARSER_STACK_BYTES, || {
        parse_on_stack(&padded, false, base)
    })
}

/// Parse a standard-library file: like [`parse`], except that a top-level
/// `fn` may leave out its body, declaring a function the host implements
/// natively (its signature is then all the checker knows of it).
pub fn parse_library(src: &str) -> Parsed {
    stacker::maybe_grow(PARSER_RED_ZONE, PARSER_STACK_BYTES, || {
        parse_on_stack(src, true, 0)
    })
}

fn parse_on_stack(src: &str, native: bool, base: usize) -> Parsed {
    let lexed = lexer::lex(src);
    let mut diagnostics = lexed.diagnostics;
    let unreported_by_lexer = lexed.unreported;
    // Doc comments that document nothing go first, so that the balancer's
    // depth estimate sees exactly the tokens the grammar will.
    let delimiters::Balanced { tokens, unreported } = delimiters::balance_at(
        src,
        base,
        attach_doc_comments(lexed.tokens),
        &mut diagnostics,
    );
    // Tokens whose errors were reported before parsing: error tokens and
    // the (empty) closers the balancer inserted.
    let reported: Vec<Span> = tokens
        .iter()
        .filter(|(t, s)| *t == Token::Error || s.is_empty())
        .map(|(_, s)| *s)
        .collect();
    let input: Vec<(Token, SimpleSpan)> = tokens
        .into_iter()
        .map(|(t, s)| (t, SimpleSpan::from(s.start..s.end)))
        .collect();
    // "End of input" is reported just after the last token, where a reader
    // looks for what is missing (not after trailing blank lines).
    let end = input.last().map_or(0, |(_, s)| s.end);
    let eoi = SimpleSpan::from(end..end);
    let mut state = ParseState {
        diagnostics: Vec::new(),
        lines: LineIndex::starting_at(src, base),
        line_starts: line_starts(src, &input),
        damaged_lines: Vec::new(),
        recoveries: 0,
        stopped_at: None,
        src,
        tight_brackets: tight_brackets(&input),
        string_prefixes: string_prefixes(&input),
        foreign_words: Vec::new(),
    };
    let mut damaged: Vec<usize> = diagnostics
        .iter()
        .filter_map(Diagnostic::primary_span)
        .chain(unreported.regions.iter().map(|(_, closed)| *closed))
        .map(|s| state.line_start_of(s.start))
        .collect();
    damaged.sort_unstable();
    damaged.dedup();
    state.damaged_lines = damaged;
    let (output, errs) = items::program(native)
        .parse_with_state(input.as_slice().split_token_span(eoi), &mut state)
        .into_output_errors();
    // Regions an earlier stage reported as damaged: an unclosed bracket
    // (from the opener to where it was closed) or interpolation.
    let damaged = Regions::new(
        diagnostics
            .iter()
            .filter(|d| {
                matches!(
                    d.code,
                    Code::UnclosedDelimiter | Code::UnterminatedInterpolation
                )
            })
            .filter_map(|d| {
                let opened = d.labels.iter().find(|l| !l.primary)?.span;
                Some((opened, d.primary_span()?))
            })
            .chain(unreported.regions.iter().copied())
            .map(|(opened, closed)| Span::new(opened.end, closed.end.max(opened.end))),
    );
    let ParseState {
        diagnostics: reported_by_rules,
        lines,
        stopped_at,
        foreign_words,
        ..
    } = state;
    diagnostics.extend(reported_by_rules);
    // Where each reported token starts, and the first error token of each
    // line (for "later on the same line").
    let reported_starts: std::collections::HashSet<usize> =
        reported.iter().map(|r| r.start).collect();
    let mut first_error_on_line: std::collections::HashMap<usize, usize> =
        std::collections::HashMap::new();
    for r in reported.iter().filter(|r| !r.is_empty()) {
        let first = first_error_on_line
            .entry(lines.line_number(r.start))
            .or_insert(r.start);
        *first = (*first).min(r.start);
    }
    for err in errs {
        let at = span(err.span());
        // At a token already reported, later on the same line as an error
        // token, or inside a damaged region: a consequence of that earlier
        // diagnostic.
        let known = reported_starts.contains(&at.start)
            || first_error_on_line
                .get(&lines.line_number(at.start))
                .is_some_and(|&first| first < at.start)
            || damaged.contains(at.start)
            || foreign_words
                .iter()
                .any(|&w| w < at.start && lines.line_number(w) == lines.line_number(at.start));
        if !known {
            let mut d = errors::to_diagnostic(&err, end);
            if d.message.starts_with("expected a field name")
                && errors::after_trailing_dot(
                    src.get(..at.start.saturating_sub(base)).unwrap_or(""),
                )
            {
                d.help = Some(errors::TRAILING_DOT.to_string());
            } else if d.message.ends_with("found `,`") && d.help.is_none() {
                let before = src.get(..at.start.saturating_sub(base)).unwrap_or("");
                if let Some(name) = errors::block_of_one_name(before) {
                    d.help = Some(format!(
                        "Writ has no record shorthand: write each field with its value, `{{ {name}: {name}, ... }}` (a `{{` that starts with a name and no `:` is a block)"
                    ));
                }
            }
            diagnostics.push(d);
        }
    }
    sort_and_dedup(&mut diagnostics);
    cap(
        &mut diagnostics,
        unreported
            .count
            .saturating_add(unreported.closers)
            .saturating_add(unreported_by_lexer),
    );
    if let (Some(at), Some(last)) = (stopped_at, diagnostics.last_mut()) {
        last.notes.push(format!(
            "after {MAX_RECOVERIES} syntax errors, the parser skipped the rest of each \
             bracket holding another error (from line {} on); fix these first",
            lines.line_number(at) + 1
        ));
    }
    Parsed {
        program: output.unwrap_or_default(),
        diagnostics,
    }
}

/// Spans of the source, merged into disjoint ones sorted by start, so that
/// whether an offset lies in one of them is a binary search.
struct Regions(Vec<Span>);

impl Regions {
    fn new(spans: impl Iterator<Item = Span>) -> Regions {
        let mut spans: Vec<Span> = spans.filter(|s| !s.is_empty()).collect();
        spans.sort_unstable_by_key(|s| s.start);
        let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
        for s in spans {
            match merged.last_mut() {
                Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
                _ => merged.push(s),
            }
        }
        Regions(merged)
    }

    /// Whether `offset` lies inside one of the spans.
    fn contains(&self, offset: usize) -> bool {
        let after = self.0.partition_point(|s| s.start <= offset);
        after
            .checked_sub(1)
            .and_then(|i| self.0.get(i))
            .is_some_and(|s| offset < s.end)
    }
}

/// Report a diagnostic from inside a rule, given a function from the rule's
/// span to the diagnostic (rewound with the rule on backtracking).
pub(crate) fn report<'t>(
    e: &mut chumsky::input::MapExtra<'t, '_, Tokens<'t>, Extra<'t>>,
    make: impl FnOnce(Span) -> Diagnostic,
) {
    let at = span(e.span());
    e.state().diagnostics.push(make(at));
}
