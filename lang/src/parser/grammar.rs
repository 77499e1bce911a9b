//! Expressions, blocks and statements.
//!
//! Precedence, loosest first (see `docs/language.md`): `||`, `&&`,
//! comparisons (non-associative), `++`, `|>`, `+ -`, `* / %`, prefix `- !`,
//! then postfix call `f(x)` and field access `e.name`. All binary operators
//! associate to the left.
//!
//! Statements need no separator: an expression ends where the next token
//! cannot continue it. Operators continue an expression across line breaks
//! (so a pipeline may put `|>` at the start of each line), but a `(` that
//! starts a line never calls the expression before it. `;` may end any
//! statement.
//!
//! Recovery: a statement that does not parse is skipped, bracket group by
//! bracket group, up to the next `let`, `fn` or `;`, or the end of its
//! block, and reported once.

use chumsky::prelude::*;

use crate::ast::{
    Arm, Block, Clause, Expr, ExprKind, FieldInit, FnDecl, Generic, Handle, HandlerParam, Lambda,
    Let, Param, Pattern, PatternKind, Perform, Stmt, StrPart, UnOp,
};
use crate::diagnostic::{Code, Diagnostic};
use crate::parser::expected::ParseError;
use crate::parser::operators;
use crate::parser::patterns::{int_out_of_range, int_value, pattern};
use crate::parser::separators::{Sep, check_separated};
use crate::parser::types::{row, type_expr};
use crate::parser::{
    Extra, P, ParseState, Tokens, after_recovery, doc, field_name, lower, lparen, operation_name,
    report, span, upper,
};
use crate::span::Span;
use crate::token::Token;

fn expr_at(kind: ExprKind, s: Span) -> Expr {
    Expr { kind, span: s }
}

/// One balanced bracket group, or one token that is not a bracket. Used to
/// skip over damaged input without tearing bracket pairs apart.
pub(crate) fn token_tree<'t>() -> impl P<'t, ()> {
    recursive(|tree| {
        let inner = tree.repeated();
        let group = choice((
            lparen()
                .ignore_then(inner.clone())
                .then_ignore(just(Token::RParen)),
            just(Token::LBrace)
                .ignore_then(inner.clone())
                .then_ignore(just(Token::RBrace)),
            just(Token::LBracket)
                .ignore_then(inner)
                .then_ignore(just(Token::RBracket)),
        ));
        let single = any()
            .filter(|t: &Token| !t.is_open() && !t.is_close())
            .ignored();
        group.or(single)
    })
}

/// Parameters `(name (: T)?, ...)` of a function or lambda.
pub(crate) fn params<'t>() -> impl P<'t, Vec<Param>> {
    let name = lower().or(just(Token::Underscore).map_with(|_, e| crate::ast::Ident {
        name: "_".to_string(),
        span: span(e.span()),
    }));
    name.then(just(Token::Colon).ignore_then(type_expr()).or_not())
        .map_with(|(name, ty), e| Param {
            name,
            ty,
            span: span(e.span()),
        })
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(lparen(), just(Token::RParen))
        .labelled("a parameter list")
}

/// A lambda's parameter: a name (or `_`), or a pattern that takes the
/// argument apart (`(k, v)`, `{ name, .. }`), each with an optional type.
enum LambdaParam {
    Name(Param),
    Pattern(Pattern, Option<crate::ast::TypeExpr>, Span),
}

/// The parameters of a lambda, which may be patterns.
fn lambda_params<'t>() -> impl P<'t, Vec<LambdaParam>> {
    let name = lower().or(just(Token::Underscore).map_with(|_, e| crate::ast::Ident {
        name: "_".to_string(),
        span: span(e.span()),
    }));
    let ty = just(Token::Colon).ignore_then(type_expr()).or_not();
    let simple = name.then(ty.clone()).map_with(|(name, ty), e| {
        LambdaParam::Name(Param {
            name,
            ty,
            span: span(e.span()),
        })
    });
    let destructured = pattern()
        .then(ty)
        .map_with(|(p, ty), e| LambdaParam::Pattern(p, ty, span(e.span())));
    simple
        .or(destructured)
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(lparen(), just(Token::RParen))
        .labelled("a parameter list")
}

/// A lambda whose parameters are names: each pattern parameter becomes a
/// parameter with a name no program can write (`$1` for the first), taken
/// apart by a `let` at the start of the body, so that it obeys the rules
/// of a `let` pattern (it must match every value: `E2103`).
fn destructure(params: Vec<LambdaParam>, mut body: Block) -> (Vec<Param>, Block) {
    let mut lets = Vec::new();
    let params = params
        .into_iter()
        .enumerate()
        .map(|(i, p)| match p {
            LambdaParam::Name(param) => param,
            LambdaParam::Pattern(pattern, ty, at) => {
                let name = crate::ast::Ident {
                    name: format!("${}", i + 1),
                    span: pattern.span,
                };
                lets.push(Stmt::Let(Box::new(Let {
                    value: expr_at(ExprKind::Var(name.clone()), pattern.span),
                    span: pattern.span,
                    pattern,
                    ty: None,
                    from_parameter: true,
                })));
                Param { name, ty, span: at }
            }
        })
        .collect();
    if !lets.is_empty() {
        lets.append(&mut body.stmts);
        body.stmts = lets;
    }
    (params, body)
}

/// `[a, b: Eq, n: Num + Show]` after a function's name.
fn generics<'t>() -> impl P<'t, Vec<Generic>> {
    let bound = upper()
        .separated_by(just(Token::Plus))
        .at_least(1)
        .collect::<Vec<_>>();
    lower()
        .then(just(Token::Colon).ignore_then(bound).or_not())
        .map(|(name, bounds)| Generic {
            name,
            bounds: bounds.unwrap_or_default(),
        })
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBracket), just(Token::RBracket))
}

/// A named function: `fn name[a](params) -> T / {E} { body }`. With
/// `native` (standard-library files only) the body may be left out.
pub(crate) fn fn_decl<'t>(block: impl P<'t, Block>, native: bool) -> impl P<'t, FnDecl> {
    let body = if native {
        block.or_not().boxed()
    } else {
        block.map(Some).boxed()
    };
    doc()
        .then_ignore(just(Token::Fn))
        .then(lower())
        .then(generics().or_not())
        .then(params())
        .then(just(Token::Arrow).ignore_then(type_expr()).or_not())
        .then(just(Token::Slash).ignore_then(row(type_expr())).or_not())
        .then(body)
        .map_with(
            |((((((doc, name), generics), params), ret), effects), body), e| FnDecl {
                doc,
                name,
                generics: generics.unwrap_or_default(),
                params,
                ret,
                effects,
                body,
                span: span(e.span()),
            },
        )
}

/// A statement: `let`, a local `fn`, or an expression.
pub(crate) fn stmt<'t>(expr: impl P<'t, Expr>, block: impl P<'t, Block>) -> impl P<'t, Stmt> {
    let let_stmt = just(Token::Let)
        .ignore_then(pattern())
        .then(just(Token::Colon).ignore_then(type_expr()).or_not())
        .then_ignore(just(Token::Assign))
        .then(expr.clone())
        .map_with(|((pattern, ty), value), e| {
            Stmt::Let(Box::new(Let {
                pattern,
                ty,
                value,
                span: span(e.span()),
                from_parameter: false,
            }))
        });
    choice((
        let_stmt,
        fn_decl(block, false).map(|f| Stmt::Fn(Box::new(f))),
        expr.map(Stmt::Expr),
    ))
}

/// What a damaged statement is replaced by.
fn skipped_stmt(s: Span) -> Stmt {
    Stmt::Expr(expr_at(ExprKind::Error, s))
}

/// Tokens that, at the start of a line, continue the expression above.
pub(crate) fn continues_line(tok: &Token) -> bool {
    tok.is_binary_operator()
        || matches!(
            tok,
            Token::Dot | Token::Else | Token::Arrow | Token::FatArrow
        )
}

/// Skips a damaged statement or item: at least one token tree, then more up
/// to the next `let`, `fn name`, `type Name`, `effect Name`, `;` or doc
/// comment, or to the next line that does not continue this one.
pub(crate) fn skip_statement<'t>() -> impl P<'t, Span> {
    let new_line = any().try_map_with(
        |t: Token, e: &mut chumsky::input::MapExtra<'t, '_, Tokens<'t>, Extra<'t>>| {
            let at = e.span();
            if e.state().starts_line(at.start) && !continues_line(&t) {
                Ok(())
            } else {
                Err(ParseError::custom(at, "not a line start"))
            }
        },
    );
    let boundary = choice((
        just(Token::Let).ignored(),
        just(Token::Fn).then(lower()).ignored(),
        just(Token::Type).then(upper()).ignored(),
        just(Token::Effect).then(upper()).ignored(),
        just(Token::Semi).ignored(),
        select! { Token::DocComment(_) => () },
        new_line,
    ));
    token_tree()
        .then(token_tree().and_is(boundary.not()).repeated())
        .map_with(|_, e| span(e.span()))
        .then_ignore(after_recovery())
}

/// `{ stmt* }`
pub(crate) fn block<'t>(expr: impl P<'t, Expr>, block: impl P<'t, Block>) -> impl P<'t, Block> {
    let semis = just(Token::Semi).repeated();
    let stmt = stmt(expr, block).recover_with(via_parser(skip_statement().map(skipped_stmt)));
    semis
        .clone()
        .ignore_then(
            stmt.then(semis.at_least(1).to(true).or_not().map(|s| s.is_some()))
                .repeated()
                .collect::<Vec<_>>(),
        )
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .map_with(|stmts, e| {
            let seps: Vec<Sep> = stmts.iter().map(|(s, semi)| Sep::stmt(s, *semi)).collect();
            check_separated(e, &seps);
            Block {
                stmts: stmts.into_iter().map(|(s, _)| s).collect(),
                span: span(e.span()),
            }
        })
        .labelled("a block")
}

/// Comma-separated call arguments in parentheses.
fn call_args<'t>(expr: impl P<'t, Expr>, open: impl P<'t, ()>) -> impl P<'t, Vec<Expr>> {
    element(expr)
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(open, just(Token::RParen))
}

/// Skips a damaged element of a comma-separated list: token trees up to the
/// next `,` or the list's closing bracket.
fn skip_element<'t>() -> impl P<'t, Span> {
    token_tree()
        .and_is(just(Token::Comma).not())
        .repeated()
        .at_least(1)
        .map_with(|_, e| span(e.span()))
        .then_ignore(after_recovery())
}

/// An expression in a comma-separated list, recovering on its own so that
/// one bad element does not hide a bad element after it.
fn element<'t>(expr: impl P<'t, Expr>) -> impl P<'t, Expr> {
    expr.recover_with(via_parser(
        skip_element().map(|s| expr_at(ExprKind::Error, s)),
    ))
}

/// The expression grammar. `block` is the (recursive) block parser.
pub(crate) fn expr<'t>(expr: impl P<'t, Expr>, block: impl P<'t, Block>) -> impl P<'t, Expr> {
    let literal = select! {
        Token::True => ExprKind::Bool(true),
        Token::False => ExprKind::Bool(false),
        Token::Float(x) => ExprKind::Float(x),
        Token::Str(s) => ExprKind::Str(s),
        Token::Error => ExprKind::Error,
    };
    let int = select! { Token::Int(v) => v }.validate(|v, e, _| match int_value(false, v) {
        Some(n) => ExprKind::Int(n),
        None => {
            report(e, int_out_of_range);
            ExprKind::Int(i64::MIN)
        }
    });

    let interp = select! { Token::StrHead(s) => s }
        .then(expr.clone())
        .then(
            select! { Token::StrMid(s) => s }
                .then(expr.clone())
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then(select! { Token::StrTail(s) => s })
        .map(|(((head, first), rest), tail)| {
            let mut parts = vec![StrPart::Text(head), StrPart::Expr(Box::new(first))];
            for (text, e) in rest {
                parts.push(StrPart::Text(text));
                parts.push(StrPart::Expr(Box::new(e)));
            }
            parts.push(StrPart::Text(tail));
            parts.retain(|p| !matches!(p, StrPart::Text(t) if t.is_empty()));
            ExprKind::Interp(parts)
        });

    // `f"{n}"`: a string with another language's prefix; reported, and
    // read as the string after it.
    let prefix = lower().try_map_with(
        |name, e: &mut chumsky::input::MapExtra<'t, '_, Tokens<'t>, Extra<'t>>| {
            if e.state().string_prefix(name.span.start) {
                Ok(name)
            } else {
                Err(ParseError::declined(e.span(), Token::Lower(name.name)))
            }
        },
    );
    let prefixed = prefix
        .then(choice((
            select! { Token::Str(s) => ExprKind::Str(s) },
            interp.clone(),
        )))
        .map_with(|(name, string), e| {
            let whole = span(e.span());
            let text = e.state().text(Span::new(name.span.end, whole.end));
            let d = string_prefix(&name.name, text, whole);
            e.state().diagnostics.push(d);
            string
        });

    let items = element(expr.clone())
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>();
    // `(x)` and `(x,)` are `x`; two or more elements make a tuple.
    let parens = items
        .clone()
        .delimited_by(lparen(), just(Token::RParen))
        .map(|mut items| match items.len() {
            0 => ExprKind::Unit,
            1 => items.remove(0).kind,
            _ => ExprKind::Tuple(items),
        });
    let list = items
        .clone()
        .delimited_by(just(Token::LBracket), just(Token::RBracket))
        .map(ExprKind::List);

    let field_init = field_name()
        .then_ignore(just(Token::Colon))
        .then(expr.clone())
        .map(|(name, value)| FieldInit { name, value });
    let fields = field_init
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>();
    let record_start = just(Token::LBrace).then(
        field_name()
            .then(just(Token::Colon))
            .ignored()
            .or(just(Token::DotDot).ignored()),
    );
    let record = field_name()
        .then_ignore(just(Token::Colon))
        .rewind()
        .ignore_then(fields.clone())
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .map(ExprKind::Record);
    let update = just(Token::DotDot)
        .ignore_then(expr.clone())
        .then(just(Token::Comma).ignore_then(fields).or_not())
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .map(|(base, fields)| ExprKind::RecordUpdate {
            base: Box::new(base),
            fields: fields.unwrap_or_default(),
        });

    let perform = upper()
        .then_ignore(just(Token::Dot))
        .then(operation_name())
        .then(call_args(expr.clone(), just(Token::LParen).ignored()).or_not())
        .map(|((effect, op), args)| {
            let called = args.is_some();
            ExprKind::Perform(Box::new(Perform {
                effect,
                op,
                args: args.unwrap_or_default(),
                called,
            }))
        });

    let lambda = just(Token::Fn)
        .ignore_then(lambda_params())
        .then(just(Token::Arrow).ignore_then(type_expr()).or_not())
        .then(just(Token::Slash).ignore_then(row(type_expr())).or_not())
        .then(block.clone())
        .map(|(((params, ret), effects), body)| {
            let (params, body) = destructure(params, body);
            ExprKind::Lambda(Box::new(Lambda {
                params,
                ret,
                effects,
                body,
            }))
        });

    let if_expr = just(Token::If)
        .ignore_then(expr.clone())
        .then(block.clone())
        .then(
            just(Token::Else)
                .then(just(Token::If))
                .ignore_then(expr.clone())
                .then(block.clone())
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then(just(Token::Else).ignore_then(block.clone()).or_not())
        .map(|(((cond, then), more), otherwise)| {
            let mut branches = vec![(cond, then)];
            branches.extend(more);
            ExprKind::If {
                branches,
                otherwise: otherwise.map(Box::new),
            }
        });

    let arm = pattern()
        .then(just(Token::If).ignore_then(expr.clone()).or_not())
        .then_ignore(just(Token::FatArrow))
        .then(expr.clone())
        .map_with(|((pattern, guard), body), e| Arm {
            pattern,
            guard,
            body,
            span: span(e.span()),
        });
    let match_expr = just(Token::Match)
        .ignore_then(expr.clone())
        .then(
            arm.recover_with(via_parser(skip_element().map(|s| Arm {
                pattern: Pattern {
                    kind: PatternKind::Error,
                    span: s,
                },
                guard: None,
                body: expr_at(ExprKind::Error, s),
                span: s,
            })))
            .then_ignore(just(Token::Comma).or_not())
            .repeated()
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LBrace), just(Token::RBrace)),
        )
        .map(|(scrutinee, arms)| ExprKind::Match {
            scrutinee: Box::new(scrutinee),
            arms,
        });

    let clause_params = pattern()
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(lparen(), just(Token::RParen));
    let op_clause = upper()
        .then_ignore(just(Token::Dot))
        .then(operation_name())
        .then(clause_params)
        .then_ignore(just(Token::FatArrow))
        .then(expr.clone())
        .map_with(|(((effect, op), params), body), e| Clause::Op {
            effect,
            op,
            params,
            body,
            span: span(e.span()),
        });
    let return_clause = just(Token::Return)
        .ignore_then(pattern().delimited_by(lparen(), just(Token::RParen)))
        .then_ignore(just(Token::FatArrow))
        .then(expr.clone())
        .map_with(|(param, body), e| Clause::Return {
            param,
            body,
            span: span(e.span()),
        });
    let handler_param = lower()
        .then_ignore(just(Token::Assign))
        .then(expr.clone())
        .delimited_by(lparen(), just(Token::RParen))
        .map(|(name, init)| HandlerParam { name, init });
    let handle = just(Token::Handle)
        .ignore_then(expr.clone())
        .then_ignore(just(Token::With))
        .then(handler_param.or_not())
        .then(
            return_clause
                .or(op_clause)
                .labelled("a handler clause such as `Eff.op(x) => ...` or `return(x) => ...`")
                .then_ignore(just(Token::Comma).or_not())
                .repeated()
                .collect::<Vec<_>>()
                .delimited_by(just(Token::LBrace), just(Token::RBrace)),
        )
        .map(|((body, param), clauses)| {
            ExprKind::Handle(Box::new(Handle {
                body,
                param,
                clauses,
            }))
        });

    // Most common first: each alternative tried and failed costs time.
    let atom = choice((
        prefixed,
        lower().map(ExprKind::Var),
        int,
        literal,
        interp,
        perform,
        upper().map(ExprKind::Ctor),
        parens,
        list,
        record,
        update,
        // `{ name:` and `{ ..` start records, never blocks.
        record_start
            .not()
            .ignore_then(block.clone())
            .map(ExprKind::Block),
        lambda,
        if_expr,
        match_expr,
        handle,
    ))
    .map_with(|kind, e| expr_at(kind, span(e.span())))
    .labelled("an expression")
    .boxed();

    enum Postfix {
        Call(Vec<Expr>),
        Field(crate::ast::Ident),
        Index(Vec<Expr>, Span),
    }
    // `xs[0]`, `m["a"]`: a `[` touching the value before it is indexing,
    // which Writ does not have; it is parsed so the message can name the
    // call to write instead.
    let tight_bracket = any().try_map_with(
        |t: Token, e: &mut chumsky::input::MapExtra<'t, '_, Tokens<'t>, Extra<'t>>| {
            let at = e.span();
            if t == Token::LBracket && e.state().tight_bracket(at.start) {
                Ok(())
            } else {
                Err(ParseError::declined(at, t))
            }
        },
    );
    let index = tight_bracket
        .ignore_then(
            element(expr.clone())
                .separated_by(just(Token::Comma))
                .allow_trailing()
                .collect::<Vec<_>>(),
        )
        .then_ignore(just(Token::RBracket))
        .map_with(|items, e| Postfix::Index(items, span(e.span())));
    let postfix = call_args(expr.clone(), just(Token::LParen).ignored())
        .map(Postfix::Call)
        .or(just(Token::Dot)
            .ignore_then(field_name())
            .map(Postfix::Field))
        .or(index);
    let call = atom.foldl_with(postfix.repeated(), |callee, post, e| {
        let s = span(e.span());
        match post {
            Postfix::Index(items, brackets) => {
                let d = indexing(e.state(), &callee, &items, brackets);
                e.state().diagnostics.push(d);
                expr_at(ExprKind::Error, s)
            }
            Postfix::Call(args) => expr_at(
                ExprKind::Call {
                    callee: Box::new(callee),
                    args,
                },
                s,
            ),
            Postfix::Field(name) => expr_at(
                ExprKind::Field {
                    expr: Box::new(callee),
                    name,
                },
                s,
            ),
        }
    });

    let prefix_op = select! { Token::Minus => UnOp::Neg, Token::Bang => UnOp::Not };
    let operand = prefix_op
        .repeated()
        .foldr_with(call, |op, operand, e| operators::prefix(op, operand, e));
    operand
        .clone()
        .then(
            operators::binary_op()
                .then(operand)
                .repeated()
                .collect::<Vec<_>>(),
        )
        .map_with(|(first, rest), e| operators::climb(first, rest, e))
        .labelled("an expression")
        .boxed()
}

/// The diagnostic for a string written with another language's prefix
/// (`f"{n}"`, `r"\d"`); `string` is the string's own text, quotes included.
fn string_prefix(prefix: &str, string: &str, at: Span) -> Diagnostic {
    let shown = if string.len() > 60 { "\"...\"" } else { string };
    if prefix == "r" {
        return Diagnostic::new(
            Code::UnexpectedToken,
            format!("expected a string, found the raw-string prefix `r` before {shown}"),
        )
        .with_primary(at, "raw string")
        .with_help("Writ has no raw strings: drop the `r` and write each backslash as `\\\\`");
    }
    // Python's `{n}` is Writ's `${n}`; `{{` and `}}` are literal braces.
    let mut writ = String::with_capacity(string.len() + 8);
    let mut chars = string.chars().peekable();
    let mut previous = None;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                writ.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                writ.push('}');
            }
            '{' if previous != Some('$') && previous != Some('\\') => writ.push_str("${"),
            c => writ.push(c),
        }
        previous = Some(c);
    }
    let help = if string.len() > 60 {
        "every Writ string interpolates: drop the `f` and write `${n}` for `{n}`".to_string()
    } else {
        format!("every Writ string interpolates: write `{writ}`")
    };
    Diagnostic::new(
        Code::UnexpectedToken,
        format!("expected a string, found the f-string prefix `f` before {shown}"),
    )
    .with_primary(at, "f-string")
    .with_help(help)
}

/// The diagnostic for `callee[items]`: Writ has no indexing, so name the
/// call that does what was meant, with the program's own text where it is
/// short.
fn indexing(state: &ParseState<'_>, callee: &Expr, items: &[Expr], brackets: Span) -> Diagnostic {
    let short = |text: &str, default: &str| {
        if text.is_empty() || text.len() > 40 || text.contains('\n') {
            default.to_string()
        } else {
            text.to_string()
        }
    };
    let index_text = match items {
        [one] => state.text(one.span),
        _ => "",
    };
    let key = |default: &str| short(index_text, default);
    let written = format!(
        "{}{}",
        short(state.text(callee.span), "xs"),
        short(state.text(brackets), "[i]")
    );
    let (call, help) = match items.first().map(|i| &i.kind) {
        Some(ExprKind::Str(_) | ExprKind::Interp(_)) if items.len() == 1 => {
            let m = short(state.text(callee.span), "m");
            let call = format!("map.get({m}, {})", key("key"));
            let help = format!(
                "Writ has no indexing: for a `Map`, write `{call}`, which returns an `Option` (`Some(value)` or `None`); for JSON, `json.get({m}, {})`",
                key("key")
            );
            (call, help)
        }
        Some(ExprKind::Int(_)) if items.len() == 1 => {
            let xs = short(state.text(callee.span), "xs");
            let call = format!("list.get({xs}, {})", key("i"));
            let help = format!(
                "Writ has no indexing: for a `List`, write `{call}`, which returns an `Option` (`Some(x)` or `None`); for a `Map`, `map.get(m, key)`"
            );
            (call, help)
        }
        _ => {
            let xs = short(state.text(callee.span), "xs");
            let call = format!("list.get({xs}, {})", key("i"));
            let help = format!(
                "Writ has no indexing: for a `List`, write `{call}`; for a `Map`, `map.get({xs}, {})`; both return an `Option` (`Some(x)` or `None`)",
                key("key")
            );
            (call, help)
        }
    };
    Diagnostic::new(
        Code::UnexpectedToken,
        format!(
            "expected a call such as `{call}`, found indexing `{written}`, which Writ does not have"
        ),
    )
    .with_primary(brackets, "indexing")
    .with_help(help)
}

/// Wires the recursive expression and block parsers together.
///
/// Only `recursive` is used, never `Recursive::declare`: a parser built by
/// `recursive` refers to itself weakly, whereas a declared parser holds its
/// clones strongly, so two declared parsers defined in terms of each other
/// form a reference cycle that is never freed (a leak of the whole grammar
/// on every parse). The block parser owns its own expression parser; the
/// expression parser returned owns the block parser; neither owns the
/// other back.
pub(crate) fn expr_and_block<'t>() -> (impl P<'t, Expr>, impl P<'t, Block>) {
    let b = recursive(|b| {
        let e = recursive(|e| expr(e, b.clone()));
        block(e, b)
    });
    let e = recursive(|e| expr(e, b.clone()));
    (e, b)
}
