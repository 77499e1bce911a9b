//! Bracket balancing: runs between the lexer and the parser.
//!
//! Every `(`, `[` and `{` is matched with its closer here, before parsing,
//! so that an unclosed or stray bracket is reported once, precisely ("expected
//! `}` to close the `{` opened at 3:14"), and the parser receives a balanced
//! token stream in which the damage stays local. Repairs:
//!
//! - a closer with no opener is dropped;
//! - a closer of the wrong kind closes the innermost opener instead;
//! - openers still open where a closer for an outer opener arrives, where a
//!   closing `}` at the start of a line lines up with an outer opener's line,
//!   where a new item (`fn name`, `type Name`, `effect Name`) starts at
//!   column 1, or at the end of input, are closed there;
//! - a group nested deeper than [`MAX_NESTING`] brackets, or deeper than
//!   [`MAX_DEPTH`] when operator chains are counted too, is replaced by one
//!   [`Token::Error`] token; so is the rest of an operator chain that would
//!   make the tree deeper than [`MAX_DEPTH`].
//!
//! The depth estimate counts, per bracket level, the operators (binary,
//! prefix, `.`, `->`) and bracket groups seen since the last separator
//! (`,` `;` `=>` `=` `:` `let` ...) or statement-ending line break. It is
//! conservative: the syntax tree the parser builds is never deeper.
//!
//! Invariant: the output has balanced brackets and describes a tree at most
//! [`MAX_DEPTH`] deep, so no later recursive stage (parsing, dropping,
//! checking) can exhaust the stack on deeply nested input.

use crate::diagnostic::{Code, Diagnostic};
use crate::parser::MAX_DIAGNOSTICS;
use crate::span::{LineIndex, Span};
use crate::token::Token;

/// The deepest bracket nesting accepted.
pub(crate) const MAX_NESTING: usize = 256;

/// The most unclosed brackets reported at one place; the rest are counted
/// in a note.
const MAX_UNCLOSED_REPORTS: usize = 10;

/// The most unclosed brackets built into diagnostics in one text. They are
/// reported in the order diagnostics are sorted in (by where they were
/// closed), so once this many are built, every later one sorts after at
/// least [`MAX_DIAGNOSTICS`] others and would never be shown: it is only
/// counted, and its damaged region kept (see [`Unreported`]).
const MAX_UNCLOSED_DIAGNOSTICS: usize = MAX_DIAGNOSTICS;

/// What the balancer found and did not build into diagnostics (see
/// [`MAX_UNCLOSED_DIAGNOSTICS`]).
#[derive(Debug, Default)]
pub(crate) struct Unreported {
    /// How many unclosed brackets were not reported.
    pub(crate) count: usize,
    /// For each, the span of its opener and where it was closed (the
    /// secondary and primary spans its diagnostic would have had).
    pub(crate) regions: Vec<(Span, Span)>,
    /// How many stray or mismatched closers were not reported: past
    /// [`MAX_UNCLOSED_DIAGNOSTICS`] of them, each would sort after that
    /// many others and never be shown (2 MiB of `)` built two million
    /// diagnostics, a gigabyte).
    pub(crate) closers: usize,
}

/// The balanced tokens of a text, and the unclosed brackets not reported.
#[derive(Debug, Default)]
pub(crate) struct Balanced {
    /// The tokens, with every bracket closed.
    pub(crate) tokens: Vec<(Token, Span)>,
    /// The unclosed brackets not built into diagnostics.
    pub(crate) unreported: Unreported,
}

/// The deepest syntax tree accepted, counting bracket levels and operator
/// chains (`a + b + ...`, `!!x`, `a.b.c`, `A -> B -> C`) together.
pub(crate) const MAX_DEPTH: usize = 1000;

/// The depth bookkeeping of one bracket level.
#[derive(Clone, Copy, Default)]
struct Level {
    /// Operators (and calls) seen at this level since the last separator.
    chain: usize,
    /// The chain when the current `if`/`match`/`handle` began: its
    /// condition and its branches are siblings, each one level below it.
    if_base: Option<usize>,
    /// Between `if`/`match`/`handle` and the `{` that ends its head.
    in_head: bool,
}

/// An open bracket (or `${` interpolation) waiting for its closer.
struct Open {
    token: Token,
    span: Span,
    /// Indentation (in characters) of the line the opener is on.
    indent: usize,
    /// The level inside this bracket.
    level: Level,
    /// False for an opener inside a region cut off as too deep: it was
    /// replaced by an error token, so it is neither reported nor closed.
    emitted: bool,
    /// The operator chains of every level outside this bracket, summed
    /// when it was opened (only the innermost level's chain ever changes,
    /// so the sum stays right while this bracket is open).
    chains_outside: usize,
}

/// Whether `tok` opens a nesting level: a bracket, or a `${`.
fn opens(tok: &Token) -> bool {
    tok.is_open() || matches!(tok, Token::StrHead(_))
}

/// Whether `tok` closes a nesting level: a bracket, or the end of a string
/// after its last `${...}`.
fn closes(tok: &Token) -> bool {
    tok.is_close() || matches!(tok, Token::StrTail(_))
}

/// Why tokens are being skipped.
#[derive(Clone, Copy)]
enum Skip {
    /// A group opened too deep: skip until the stack is back to `depth`.
    Group { depth: usize, start: Span },
    /// An operator chain too long: skip the rest of the expression at
    /// `depth` (up to a separator or the closer of its level).
    Chain { depth: usize, start: Span },
}

/// Tokens that end one expression and begin a sibling: they reset the
/// operator chain of their level.
fn is_separator(tok: &Token) -> bool {
    matches!(
        tok,
        Token::Comma
            | Token::Semi
            | Token::FatArrow
            | Token::Assign
            | Token::Let
            | Token::Type
            | Token::Effect
            | Token::Colon
            | Token::StrMid(_)
    )
}

/// Tokens after which a `(` calls what came before.
fn ends_operand(tok: &Token) -> bool {
    matches!(
        tok,
        Token::Lower(_)
            | Token::Upper(_)
            | Token::RParen
            | Token::RBracket
            | Token::RBrace
            | Token::Str(_)
            | Token::StrTail(_)
    )
}

/// Tokens that make the tree one level deeper when they continue an
/// expression or type: binary and prefix operators, field access, arrows.
fn deepens(tok: &Token) -> bool {
    tok.is_binary_operator() || matches!(tok, Token::Bang | Token::Dot | Token::Arrow)
}

struct Balancer<'s> {
    src: &'s str,
    lines: LineIndex<'s>,
    out: Vec<(Token, Span)>,
    stack: Vec<Open>,
    /// The level outside every bracket.
    top: Level,
    skipping: Option<Skip>,
    /// Whether the input's brackets are unbalanced, so that layout (line
    /// starts, indentation) is used to guess where a bracket is missing.
    /// Balanced input is never second-guessed, however it is laid out.
    repair: bool,
    /// Unmatched openers minus unmatched closers of each kind still to be
    /// accounted for by repairs (see [`kind`]).
    surplus: [i64; 4],
    /// After a too-deep report at this stack depth, further ones at the same
    /// depth or deeper are consequences of it and stay quiet.
    quiet_from: Option<usize>,
    /// Unclosed brackets built into diagnostics so far.
    unclosed_reported: usize,
    /// Stray and mismatched closers built into diagnostics so far.
    closers_reported: usize,
    unreported: Unreported,
}

impl Balancer<'_> {
    /// The innermost level.
    fn level_mut(&mut self) -> &mut Level {
        match self.stack.last_mut() {
            Some(open) => &mut open.level,
            None => &mut self.top,
        }
    }

    /// The operator chain of the innermost level.
    fn chain_mut(&mut self) -> &mut usize {
        &mut self.level_mut().chain
    }

    /// A conservative bound on how deep the syntax tree is at this point:
    /// every bracket level plus every operator chain along the way.
    fn depth_estimate(&self) -> usize {
        self.stack.len() + self.chains()
    }

    /// The operator chains of every level, summed.
    fn chains(&self) -> usize {
        match self.stack.last() {
            Some(open) => open.chains_outside + open.level.chain,
            None => self.top.chain,
        }
    }

    /// Open a bracket: a new innermost level.
    fn push_open(&mut self, token: Token, span: Span, indent: usize, emitted: bool) {
        let chains_outside = self.chains();
        self.stack.push(Open {
            token,
            span,
            indent,
            level: Level::default(),
            emitted,
            chains_outside,
        });
    }

    /// Whether a line break separates the previous token from `at`.
    fn first_on_line(&self, at: Span) -> Option<usize> {
        let prev_end = self.out.last().map(|(_, s)| s.end)?;
        self.src
            .get(prev_end..at.start)
            .is_some_and(|gap| gap.contains('\n'))
            .then_some(prev_end)
    }

    /// While skipping: consume `tok` if it belongs to the skipped region.
    /// Returns `true` if it was consumed.
    fn skip(&mut self, tok: &Token, span: Span) -> bool {
        let Some(skip) = self.skipping else {
            return false;
        };
        let (depth, start, is_chain) = match skip {
            Skip::Group { depth, start } => (depth, start, false),
            Skip::Chain { depth, start } => (depth, start, true),
        };
        if opens(tok) {
            self.push_open(tok.clone(), span, 0, false);
            return true;
        }
        if closes(tok) && self.stack.len() > depth {
            self.stack.pop();
            if self.stack.len() == depth && !is_chain {
                self.out.push((Token::Error, start.join(span)));
                self.skipping = None;
            }
            return true;
        }
        let ends_chain = is_chain && self.stack.len() == depth && is_separator(tok);
        if !closes(tok) && !ends_chain {
            return true;
        }
        // A closer of the skipped level (or below), or a separator ending a
        // skipped chain: the region ends before it.
        self.out.push((Token::Error, start));
        self.skipping = None;
        false
    }

    /// One more level in the innermost chain. Past the limit, report it and
    /// skip the rest of the chain; returns whether skipping started.
    fn deepen(&mut self, span: Span, diags: &mut Vec<Diagnostic>) -> bool {
        *self.chain_mut() += 1;
        if self.depth_estimate() <= MAX_DEPTH {
            return false;
        }
        self.report_too_deep(span, false, diags);
        self.skipping = Some(Skip::Chain {
            depth: self.stack.len(),
            start: span,
        });
        true
    }

    /// Report a too-deep point at `span` (once per deep region).
    fn report_too_deep(&mut self, span: Span, brackets: bool, diags: &mut Vec<Diagnostic>) {
        let depth = self.stack.len();
        if self.quiet_from.is_some_and(|q| depth >= q) {
            return;
        }
        self.quiet_from = Some(depth);
        diags.push(self.too_deep(span, brackets));
    }

    fn too_deep(&self, span: Span, brackets: bool) -> Diagnostic {
        let (message, label) = if brackets {
            (
                format!(
                    "expected brackets nested at most {MAX_NESTING} deep, found deeper nesting"
                ),
                format!("bracket number {} on this path", MAX_NESTING + 1),
            )
        } else {
            (
                format!(
                    "expected an expression at most {MAX_DEPTH} levels deep, found a deeper one (counting brackets and chained operators)"
                ),
                format!("level {} starts here", MAX_DEPTH + 1),
            )
        };
        Diagnostic::new(Code::NestingTooDeep, message)
            .with_primary(span, label)
            .with_help("split the expression into smaller pieces with `let`")
    }
}

/// Balance the brackets of `tokens`, reporting every repair (unclosed
/// brackets past [`MAX_UNCLOSED_DIAGNOSTICS`] only in [`Unreported`]), for
/// a text whose first line starts at byte `base` (see
/// [`LineIndex::starting_at`]): positions named in messages are the
/// text's own.
pub(crate) fn balance_at(
    src: &str,
    base: usize,
    tokens: Vec<(Token, Span)>,
    diags: &mut Vec<Diagnostic>,
) -> Balanced {
    let surplus = surplus(&tokens);
    // Room for a closer for every opener too many, so that the (large)
    // output is allocated once, not doubled when the repairs begin.
    let unclosed: i64 = surplus.iter().map(|s| (*s).max(0)).sum();
    let room = tokens
        .len()
        .saturating_add(usize::try_from(unclosed).unwrap_or(0));
    let mut b = Balancer {
        src,
        lines: LineIndex::starting_at(src, base),
        out: Vec::with_capacity(room),
        stack: Vec::new(),
        top: Level::default(),
        skipping: None,
        quiet_from: None,
        repair: !is_balanced(&tokens),
        surplus,
        unclosed_reported: 0,
        closers_reported: 0,
        unreported: Unreported::default(),
    };
    let mut iter = tokens.into_iter().peekable();

    while let Some((tok, span)) = iter.next() {
        if b.skip(&tok, span) {
            if let Some(Skip::Chain { start, .. } | Skip::Group { start, .. }) = b.skipping.as_mut()
            {
                *start = start.join(span);
            }
            continue;
        }

        if opens(&tok) {
            // A call deepens the level it appears in (`f(a)(b)(c)`).
            let is_call =
                tok == Token::LParen && b.out.last().is_some_and(|(t, _)| ends_operand(t));
            if is_call {
                *b.chain_mut() += 1;
            }
            // The `{` that ends an `if`/`match`/`handle` head: the whole
            // construct is one operand, one level below its start.
            if tok == Token::LBrace {
                let level = b.level_mut();
                if level.in_head {
                    level.in_head = false;
                    level.chain = level.if_base.unwrap_or(level.chain) + 1;
                }
            }
            if b.stack.len() >= MAX_NESTING {
                b.report_too_deep(span, true, diags);
                let depth = b.stack.len();
                b.push_open(tok, span, 0, false);
                b.skipping = Some(Skip::Group { depth, start: span });
                continue;
            }
            if b.depth_estimate() >= MAX_DEPTH {
                b.report_too_deep(span, false, diags);
                let depth = b.stack.len();
                b.push_open(tok, span, 0, false);
                b.skipping = Some(Skip::Chain { depth, start: span });
                continue;
            }
            let indent = line_indent(src, &b.lines, span.start);
            b.push_open(tok.clone(), span, indent, true);
            b.out.push((tok, span));
            continue;
        }

        if closes(&tok) {
            if matches!(tok, Token::StrTail(_)) {
                b.close_string(tok, span, diags);
            } else {
                b.close(tok, span, diags);
            }
            if b.quiet_from.is_some_and(|q| b.stack.len() < q) {
                b.quiet_from = None;
            }
            continue;
        }

        let first_on_line = b.first_on_line(span);
        if let Some(prev_end) = first_on_line
            && b.repair
        {
            // A line that starts at or left of the line where a bracket was
            // opened, without closing it, means it was left open (only when
            // the file has an opener too many of that kind). A line that
            // starts with a closer is handled by `close`.
            let indent = line_indent(src, &b.lines, span.start);
            while let Some(open) = b.stack.last()
                && open.token.is_open()
                && open.indent >= indent
                && b.surplus_of(&open.token) > 0
            {
                let Some(open) = b.stack.pop() else { break };
                b.report_unclosed(&open, span, diags, |lines| {
                    let line = lines.position(span.start).line;
                    format!("{tok} on line {line}, which is not indented inside it")
                });
                push_closer(&mut b.out, &open, Span::point(prev_end));
                b.adjust(&open.token, -1);
            }
        }
        if first_on_line.is_some() {
            // A new line that neither continues an operator chain nor is
            // continued by one starts a new statement.
            let prev_continues = b.out.last().is_some_and(|(t, _)| deepens(t));
            if !prev_continues && !deepens(&tok) {
                *b.chain_mut() = 0;
            }
        }

        // A new item at column 1 closes everything still open.
        if b.repair
            && b.stack.last().is_some_and(|o| b.surplus_of(&o.token) > 0)
            && starts_item(&tok, iter.peek().map(|(t, _)| t))
            && b.lines.line_start(span.start) == span.start
        {
            b.close_down_to(0, span, &tok.to_string(), diags);
        }

        match tok {
            Token::If | Token::Match | Token::Handle => {
                let after_else = b.out.last().is_some_and(|(t, _)| *t == Token::Else);
                let level = b.level_mut();
                if !(after_else && tok == Token::If && level.if_base.is_some()) {
                    level.if_base = Some(level.chain);
                }
                level.in_head = true;
                // The construct is a level of its own: heads nested without
                // brackets (`if if if x ...`) deepen the tree.
                if b.deepen(span, diags) {
                    continue;
                }
            }
            Token::Else => {
                let level = b.level_mut();
                if let Some(base) = level.if_base {
                    level.chain = base;
                }
            }
            _ => {}
        }
        if is_separator(&tok) {
            *b.chain_mut() = 0;
        } else if deepens(&tok) && b.deepen(span, diags) {
            continue;
        }
        b.out.push((tok, span));
    }

    if b.skipping.take().is_some() {
        // Close the skipped region at the end of input.
        let start = b.out.last().map_or(0, |(_, s)| s.end);
        b.out.push((Token::Error, Span::new(start, src.len())));
    }
    // Reported just after the last token, where a reader looks for what is
    // missing.
    let eof = Span::point(b.out.last().map_or(0, |(_, s)| s.end));
    b.close_down_to(0, eof, "the end of input", diags);
    Balanced {
        tokens: b.out,
        unreported: b.unreported,
    }
}

/// Whether every bracket in `tokens` is closed by one of its own kind, in
/// order.
fn is_balanced(tokens: &[(Token, Span)]) -> bool {
    let mut stack = Vec::new();
    for (tok, _) in tokens {
        if let Some(closer) = tok.closer() {
            stack.push(closer);
        } else if tok.is_close() && stack.pop().as_ref() != Some(tok) {
            return false;
        }
    }
    stack.is_empty()
}

/// Which kind of bracket a token opens or closes: 0 `()`, 1 `{}`, 2 `[]`,
/// 3 a string's interpolations.
fn kind(tok: &Token) -> usize {
    match tok {
        Token::LBrace | Token::RBrace => 1,
        Token::LBracket | Token::RBracket => 2,
        Token::StrHead(_) | Token::StrTail(_) => 3,
        _ => 0,
    }
}

/// Opening minus closing brackets of each kind in `tokens` (strings, kind
/// 3, always balance).
fn surplus(tokens: &[(Token, Span)]) -> [i64; 4] {
    let mut s = [0i64; 4];
    for (tok, _) in tokens {
        if let Some(slot) = s.get_mut(kind(tok)) {
            if tok.is_open() {
                *slot += 1;
            } else if tok.is_close() {
                *slot -= 1;
            }
        }
    }
    s
}

impl Balancer<'_> {
    fn surplus_of(&self, tok: &Token) -> i64 {
        self.surplus.get(kind(tok)).copied().unwrap_or(0)
    }

    fn adjust(&mut self, tok: &Token, by: i64) {
        if let Some(slot) = self.surplus.get_mut(kind(tok)) {
            *slot += by;
        }
    }

    /// Pop openers above stack index `keep`, reporting each as unclosed and
    /// closing it just before `at`.
    fn close_down_to(&mut self, keep: usize, at: Span, found: &str, diags: &mut Vec<Diagnostic>) {
        let mut reported = 0usize;
        let mut built = true;
        let mut more = 0usize;
        while self.stack.len() > keep {
            let Some(open) = self.stack.pop() else { break };
            if !open.token.is_open() || !open.emitted {
                // A `${` (the lexer always ends it), or an opener inside a
                // region already replaced by an error token.
                continue;
            }
            if reported < MAX_UNCLOSED_REPORTS {
                built = self.report_unclosed(&open, at, diags, |_| found.to_string());
                reported += 1;
            } else {
                more += 1;
            }
            push_closer(&mut self.out, &open, at);
            self.adjust(&open.token, -1);
        }
        // (On the last report of this place, if that was built.)
        if more > 0
            && built
            && let Some(last) = diags.last_mut()
        {
            last.notes.push(format!(
                "{more} more brackets opened before this one are not closed either"
            ));
        }
    }

    /// The end of a string whose interpolations are now all closed: any
    /// bracket still open inside the last `${` was left open.
    fn close_string(&mut self, tok: Token, span: Span, diags: &mut Vec<Diagnostic>) {
        if let Some(pos) = self
            .stack
            .iter()
            .rposition(|o| matches!(o.token, Token::StrHead(_)))
        {
            self.close_down_to(pos + 1, span, "the end of the interpolation", diags);
            self.stack.pop();
        }
        self.out.push((tok, span));
    }

    /// Handle one closing token.
    fn close(&mut self, tok: Token, span: Span, diags: &mut Vec<Diagnostic>) {
        let Some(top) = self.stack.last() else {
            self.report_stray(&tok, span, diags);
            self.adjust(&tok, 1);
            return;
        };
        let matches_top = top.token.closer().as_ref() == Some(&tok);
        let top_token = top.token.clone();
        let top_indent = top.indent;
        let top_span = top.span;
        // A closer inside an interpolation cannot close a bracket opened
        // outside the string.
        if matches!(top_token, Token::StrHead(_)) {
            self.report_stray(&tok, span, diags);
            self.adjust(&tok, 1);
            return;
        }
        // A `}` alone at the start of a line that lines up with an outer
        // `{`'s line closes that one; the openers in between were left open.
        // (Even when it would match the innermost `{`: with a `{` too many
        // in the file, layout is the best evidence of which one.)
        if self.repair
            && tok == Token::RBrace
            && self.surplus_of(&tok) > 0
            && at_line_start(self.src, span.start)
        {
            let col = line_indent(self.src, &self.lines, span.start);
            if top_indent > col
                && let Some(pos) = self
                    .stack
                    .iter()
                    .rposition(|o| o.token == Token::LBrace && o.indent == col)
            {
                let found = match self
                    .stack
                    .get(pos)
                    .map(|o| self.lines.position(o.span.start))
                {
                    Some(p) => format!(
                        "the `}}` that lines up with the `{{` opened at {}:{}",
                        p.line, p.column
                    ),
                    None => "`}`".to_string(),
                };
                self.close_down_to(pos + 1, span, &found, diags);
                self.stack.pop();
                self.out.push((tok, span));
                return;
            }
        }

        if matches_top {
            self.stack.pop();
            self.out.push((tok, span));
            return;
        }

        // A closer that does not match the innermost opener (only then are
        // the outer ones searched: a search per closer would make deep
        // nesting quadratic).
        let barrier = self
            .stack
            .iter()
            .rposition(|o| matches!(o.token, Token::StrHead(_)))
            .map_or(0, |i| i + 1);
        let outer = self
            .stack
            .iter()
            .rposition(|o| o.token.closer().as_ref() == Some(&tok))
            .filter(|&i| i >= barrier);

        // One opener too many of the top's kind and one closer too many of
        // this kind: the closer is the wrong kind.
        let wrong_kind = self.surplus_of(&top_token) > 0 && self.surplus_of(&tok) < 0;
        match outer {
            Some(pos) if !wrong_kind && self.surplus_of(&top_token) > 0 => {
                // The openers above the matching one were never closed.
                self.close_down_to(pos + 1, span, &tok.to_string(), diags);
                self.stack.pop();
                self.out.push((tok, span));
            }
            // A closer of a kind that has one too many closers, and nothing
            // open to close: stray.
            None if !wrong_kind && self.surplus_of(&tok) < 0 => {
                self.report_stray(&tok, span, diags);
                self.adjust(&tok, 1);
            }
            _ => {
                self.stack.pop();
                let want = top_token.closer().unwrap_or(Token::RParen);
                let at = self.lines.position(top_span.start);
                let reported = self.closer_reported();
                if reported {
                    diags.push(
                    Diagnostic::new(
                        Code::MismatchedDelimiter,
                        format!(
                            "expected {want} to close the {top_token} opened at {}:{}, found {tok}",
                            at.line, at.column
                        ),
                    )
                    .with_primary(span, format!("expected {want} here"))
                    .with_secondary(top_span, "opened here")
                    .with_help(format!("replace {tok} with {want}")),
                    );
                }
                self.adjust(&top_token, -1);
                self.adjust(&tok, 1);
                self.out.push((want, span));
            }
        }
    }
}

impl Balancer<'_> {
    /// Whether one more stray or mismatched closer is built into a
    /// diagnostic; past [`MAX_UNCLOSED_DIAGNOSTICS`] it is only counted.
    fn closer_reported(&mut self) -> bool {
        if self.closers_reported >= MAX_UNCLOSED_DIAGNOSTICS {
            self.unreported.closers += 1;
            return false;
        }
        self.closers_reported += 1;
        true
    }

    /// Report the closer `tok` at `span`, which closes nothing.
    fn report_stray(&mut self, tok: &Token, span: Span, diags: &mut Vec<Diagnostic>) {
        if !self.closer_reported() {
            return;
        }
        diags.push(
            Diagnostic::new(
                Code::UnexpectedClosingDelimiter,
                format!("expected an opening bracket before {tok}, found none open"),
            )
            .with_primary(span, "nothing to close here")
            .with_help("remove it, or add the opening bracket it belongs to"),
        );
    }

    /// Report `open` as unclosed, closed at `at` where `found` was found;
    /// past [`MAX_UNCLOSED_DIAGNOSTICS`], only count it and keep its region.
    /// Returns whether a diagnostic was built.
    fn report_unclosed(
        &mut self,
        open: &Open,
        at: Span,
        diags: &mut Vec<Diagnostic>,
        found: impl FnOnce(&LineIndex<'_>) -> String,
    ) -> bool {
        if self.unclosed_reported >= MAX_UNCLOSED_DIAGNOSTICS {
            self.unreported.count += 1;
            self.unreported.regions.push((open.span, at));
            return false;
        }
        self.unclosed_reported += 1;
        diags.push(unclosed(&self.lines, open, at, &found(&self.lines)));
        true
    }
}

fn unclosed(lines: &LineIndex<'_>, open: &Open, at: Span, found: &str) -> Diagnostic {
    let want = open.token.closer().unwrap_or(Token::RParen);
    let pos = lines.position(open.span.start);
    Diagnostic::new(
        Code::UnclosedDelimiter,
        format!(
            "expected {want} to close the {} opened at {}:{}, found {found}",
            open.token, pos.line, pos.column
        ),
    )
    .with_primary(at, format!("expected {want} before this"))
    .with_secondary(open.span, "opened here, never closed")
    .with_help(format!("add {want} where the {} should end", open.token))
}

/// Insert a synthetic closer for `open`, as an empty span at `at`.
fn push_closer(out: &mut Vec<(Token, Span)>, open: &Open, at: Span) {
    out.push((
        open.token.closer().unwrap_or(Token::RParen),
        Span::point(at.start),
    ));
}

/// Whether `tok` followed by `next` begins a top-level item.
fn starts_item(tok: &Token, next: Option<&Token>) -> bool {
    matches!(
        (tok, next),
        (Token::Fn, Some(Token::Lower(_)))
            | (Token::Type | Token::Effect, Some(Token::Upper(_)))
            | (Token::DocComment(_), _)
    )
}

/// Whether only spaces and tabs stand between the start of the line and
/// `offset`.
fn at_line_start(src: &str, offset: usize) -> bool {
    let before = src.get(..offset).unwrap_or("");
    before
        .bytes()
        .rev()
        .find(|b| *b != b' ' && *b != b'\t')
        .is_none_or(|b| b == b'\n')
}

/// Indentation (leading spaces and tabs, in characters) of the line holding
/// `offset`.
fn line_indent(src: &str, lines: &LineIndex<'_>, offset: usize) -> usize {
    let line_start = lines.line_start(offset);
    src.get(line_start..)
        .unwrap_or("")
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn run(src: &str) -> (Vec<Token>, Vec<Code>) {
        let mut diags = Vec::new();
        let toks = balance_at(src, 0, lex(src).tokens, &mut diags).tokens;
        (
            toks.into_iter().map(|(t, _)| t).collect(),
            diags.iter().map(|d| d.code).collect(),
        )
    }

    #[test]
    fn balanced_input_is_untouched() {
        let (toks, codes) = run("f(a, [b], { c })");
        assert!(codes.is_empty());
        assert_eq!(toks.len(), 12);
    }

    #[test]
    fn missing_brace_is_closed_before_the_next_item() {
        let (toks, codes) = run("fn f() {\n  1\nfn g() { 2 }\n");
        assert_eq!(codes, vec![Code::UnclosedDelimiter]);
        let closers = toks.iter().filter(|t| **t == Token::RBrace).count();
        assert_eq!(closers, 2);
    }

    #[test]
    fn paren_left_open_at_end_of_line_is_closed_there() {
        let (toks, codes) = run("  let z = (1, 2\n  z\n");
        assert_eq!(codes, vec![Code::UnclosedDelimiter]);
        assert_eq!(toks.get(7), Some(&Token::RParen));
        // A multi-line call whose lines are indented further is fine.
        assert!(run("f(\n  a,\n  b\n)").1.is_empty());
        assert!(run("f(a,\n   b)").1.is_empty());
    }

    #[test]
    fn stray_and_mismatched_closers() {
        assert_eq!(run("a)").1, vec![Code::UnexpectedClosingDelimiter]);
        assert_eq!(run("(a]").1, vec![Code::MismatchedDelimiter]);
        assert_eq!(run("{ (a }").1, vec![Code::UnclosedDelimiter]);
    }

    #[test]
    fn unclosed_brackets_past_the_limit_are_only_counted() {
        let src = "f((1, 2\n".repeat(200);
        let mut diags = Vec::new();
        let out = balance_at(&src, 0, lex(&src).tokens, &mut diags);
        assert_eq!(diags.len(), MAX_UNCLOSED_DIAGNOSTICS);
        assert_eq!(out.unreported.count, 400 - MAX_UNCLOSED_DIAGNOSTICS);
        assert_eq!(out.unreported.regions.len(), out.unreported.count);
        // Every bracket is still closed.
        let closers = out.tokens.iter().filter(|(t, _)| *t == Token::RParen);
        assert_eq!(closers.count(), 400);
    }

    #[test]
    fn stray_and_mismatched_closers_past_the_limit_are_only_counted() {
        let src = ")".repeat(400);
        let mut diags = Vec::new();
        let out = balance_at(&src, 0, lex(&src).tokens, &mut diags);
        assert_eq!(diags.len(), MAX_UNCLOSED_DIAGNOSTICS);
        assert_eq!(out.unreported.closers, 400 - MAX_UNCLOSED_DIAGNOSTICS);
        assert!(out.tokens.is_empty(), "strays are dropped");
        let src = "(]".repeat(300);
        let mut diags = Vec::new();
        let out = balance_at(&src, 0, lex(&src).tokens, &mut diags);
        assert_eq!(diags.len(), MAX_UNCLOSED_DIAGNOSTICS);
        assert_eq!(out.unreported.closers, 300 - MAX_UNCLOSED_DIAGNOSTICS);
        // Each `]` still closes its `(`, as `)`.
        let closers = out.tokens.iter().filter(|(t, _)| *t == Token::RParen);
        assert_eq!(closers.count(), 300);
    }

    #[test]
    fn the_note_on_more_unclosed_brackets_goes_only_on_a_built_report() {
        // 94 reported one a line (each closed by the next line), then 21
        // closed at once at the end: 10 reported there (6 built), and the
        // note on the 11 beyond them would go on a report never built.
        let src = format!("{}{}", "f(x\n".repeat(95), "{[".repeat(10));
        let mut diags = Vec::new();
        let out = balance_at(&src, 0, lex(&src).tokens, &mut diags);
        assert_eq!(diags.len(), MAX_UNCLOSED_DIAGNOSTICS);
        assert_eq!(out.unreported.count, 4);
        assert!(diags.iter().all(|d| d.notes.is_empty()), "{diags:?}");
        // With room for them, the ten are built and the last one has it.
        let src = format!("{}{}", "f(x\n".repeat(5), "{[".repeat(10));
        let mut diags = Vec::new();
        balance_at(&src, 0, lex(&src).tokens, &mut diags);
        assert_eq!(diags.len(), 14);
        let notes: Vec<_> = diags.iter().flat_map(|d| &d.notes).collect();
        assert_eq!(notes.len(), 1, "{diags:?}");
    }

    #[test]
    fn a_mismatched_closer_deep_inside_nesting_is_repaired_where_it_is() {
        let deep = 200;
        // One `(` too many and one `]` too many: the `]` is a `)` mistyped,
        // replaced in place, and the brackets around it are untouched.
        let src = format!("{}a]{}", "(".repeat(deep), ")".repeat(deep - 1));
        let (toks, codes) = run(&src);
        assert_eq!(codes, vec![Code::MismatchedDelimiter]);
        assert_eq!(toks.len(), 2 * deep + 1);
        assert!(toks.iter().skip(deep + 1).all(|t| *t == Token::RParen));
        // No `[` at all: the `]` is stray.
        let src = format!("{}a]{}", "(".repeat(deep), ")".repeat(deep));
        assert_eq!(run(&src).1, vec![Code::UnexpectedClosingDelimiter]);
    }

    #[test]
    fn a_closer_inside_an_interpolation_never_closes_a_bracket_outside_it() {
        // Deep inside brackets, a `]` in a `${` whose own `(` is open: the
        // `[` it could match is outside the string, so it is the `(`'s
        // closer mistyped; the `[` outside is then left open, reported
        // once, and the string's parts stay in order.
        let deep = 100;
        let src = format!("{}[[\"${{(a]}}\"]{}", "(".repeat(deep), ")".repeat(deep));
        let mut diags = Vec::new();
        let out = balance_at(&src, 0, lex(&src).tokens, &mut diags).tokens;
        let codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            vec![Code::MismatchedDelimiter, Code::UnclosedDelimiter]
        );
        assert!(is_balanced(&out), "{out:?}");
        let toks: Vec<Token> = out.into_iter().map(|(t, _)| t).collect();
        let head = toks.iter().position(|t| matches!(t, Token::StrHead(_)));
        let tail = toks.iter().position(|t| matches!(t, Token::StrTail(_)));
        assert_eq!(
            head.zip(tail).and_then(|(h, t)| toks.get(h + 1..t)),
            Some(&[Token::LParen, Token::Lower("a".into()), Token::RParen][..])
        );
    }

    #[test]
    fn deep_interpolation_is_cut_off_like_brackets() {
        // Strings nested in `${` a hundred thousand deep, closed or not:
        // one E0013 at the limit, and the lexer hands over no more than
        // the limit's worth of tokens (it kept a token and a diagnostic per
        // level, half a gigabyte for 600,000 levels).
        let depth = 100_000;
        let closed = format!("{}1{}", "\"${".repeat(depth), "}\"".repeat(depth));
        let (toks, codes) = run(&closed);
        assert_eq!(codes, vec![Code::NestingTooDeep]);
        assert_eq!(toks.len(), MAX_NESTING * 2 + 1);
        let open = "\"${".repeat(depth);
        let lexed = lex(&open);
        assert!(
            lexed.tokens.len() < 3 * MAX_NESTING,
            "{}",
            lexed.tokens.len()
        );
        let (_, codes) = run(&open);
        assert_eq!(codes, vec![Code::NestingTooDeep]);
        // At the limit, accepted.
        let src = format!(
            "{}1{}",
            "\"${".repeat(MAX_NESTING),
            "}\"".repeat(MAX_NESTING)
        );
        let (toks, codes) = run(&src);
        assert!(codes.is_empty(), "{codes:?}");
        assert_eq!(toks.len(), MAX_NESTING * 2 + 1);
    }

    #[test]
    fn deep_nesting_is_cut_off() {
        let src = format!("{}{}", "(".repeat(10_000), ")".repeat(10_000));
        let (toks, codes) = run(&src);
        assert_eq!(codes, vec![Code::NestingTooDeep]);
        assert_eq!(toks.len(), MAX_NESTING * 2 + 1);
    }
}
