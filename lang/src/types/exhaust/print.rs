//! Printing a witness (a value no arm matches) as a Writ pattern.
//!
//! Invariants: printing consumes exactly the tokens of one pattern and never
//! fails; a missing token prints as `_`; recursion grows the stack.

use super::{Family, OTHER_STRINGS, Other, RED_ZONE, STACK_GROWTH, Tok, Witness};

/// Print a one-column witness as a Writ pattern.
pub(super) fn render(witness: &Witness<'_>) -> String {
    let toks: Vec<Tok<'_>> = witness.iter().rev().copied().collect();
    let mut out = String::new();
    let mut pos = 0;
    print_pat(&toks, &mut pos, &mut out);
    out
}

/// Print the pattern starting at `toks[*pos]`, advancing `pos` past it.
fn print_pat(toks: &[Tok<'_>], pos: &mut usize, out: &mut String) {
    stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || print_here(toks, pos, out));
}

fn print_here(toks: &[Tok<'_>], pos: &mut usize, out: &mut String) {
    let Some(&tok) = toks.get(*pos) else {
        out.push('_');
        return;
    };
    *pos += 1;
    let (family, index, arity) = match tok {
        Tok::Ctor {
            family,
            index,
            arity,
        } => (family, index, arity),
        Tok::Other(Other::Int(n)) => {
            out.push_str(&n.to_string());
            return;
        }
        Tok::Other(Other::Float(bits)) => {
            out.push_str(&format!("{:?}", f64::from_bits(bits)));
            return;
        }
        Tok::Other(Other::Str(i)) => {
            out.push_str(&format!(
                "{:?}",
                OTHER_STRINGS.get(i).copied().unwrap_or("")
            ));
            return;
        }
        Tok::Wild => {
            out.push('_');
            return;
        }
    };
    match family {
        Family::Sum(ctors) => {
            out.push_str(ctors.get(index).map_or("_", |(name, _)| name.as_str()));
            if arity > 0 {
                print_args(toks, pos, arity, out);
            }
        }
        Family::Bool => {
            out.push_str(if index == 0 { "true" } else { "false" });
            skip(toks, pos, arity);
        }
        Family::Unit => {
            out.push_str("()");
            skip(toks, pos, arity);
        }
        // There are no one-element tuples: `(x)` is `x`.
        Family::Tuple(_) if arity == 1 => print_pat(toks, pos, out),
        Family::Tuple(_) => print_args(toks, pos, arity, out),
        Family::Record(fields) => print_record(fields, toks, pos, arity, out),
        Family::List if index == 1 && arity == 2 => print_list(toks, pos, out),
        Family::List if index == 0 => {
            out.push_str("[]");
            skip(toks, pos, arity);
        }
        Family::List | Family::Infinite => {
            out.push('_');
            skip(toks, pos, arity);
        }
    }
}

/// Print `(p, q, ...)`.
fn print_args(toks: &[Tok<'_>], pos: &mut usize, arity: usize, out: &mut String) {
    out.push('(');
    for i in 0..arity {
        if i > 0 {
            out.push_str(", ");
        }
        print_pat(toks, pos, out);
    }
    out.push(')');
}

/// Print `{ a: p, .. }`, leaving out the fields that are `_`.
fn print_record(
    fields: &[String],
    toks: &[Tok<'_>],
    pos: &mut usize,
    arity: usize,
    out: &mut String,
) {
    if arity == 0 {
        out.push_str("{}");
        return;
    }
    let mut shown = 0;
    out.push('{');
    for i in 0..arity {
        if matches!(toks.get(*pos), None | Some(Tok::Wild)) {
            *pos += 1;
            continue;
        }
        out.push_str(if shown == 0 { " " } else { ", " });
        out.push_str(fields.get(i).map_or("_", String::as_str));
        out.push_str(": ");
        print_pat(toks, pos, out);
        shown += 1;
    }
    if shown < arity {
        out.push_str(if shown == 0 { " .." } else { ", .." });
    }
    out.push_str(" }");
}

/// Print a cons cell (its token already consumed) and the cells after it as
/// one list: `[a, b]`, or `[a, b, ..]` when the list goes on. Iterative
/// along the spine, so long lists do not recurse.
fn print_list(toks: &[Tok<'_>], pos: &mut usize, out: &mut String) {
    out.push('[');
    loop {
        print_pat(toks, pos, out);
        match toks.get(*pos).copied() {
            Some(Tok::Ctor {
                family: Family::List,
                index: 1,
                arity: 2,
            }) => {
                *pos += 1;
                out.push_str(", ");
            }
            Some(Tok::Ctor {
                family: Family::List,
                index: 0,
                arity,
            }) => {
                *pos += 1;
                skip(toks, pos, arity);
                out.push(']');
                return;
            }
            _ => {
                skip(toks, pos, 1);
                out.push_str(", ..]");
                return;
            }
        }
    }
}

/// Consume `n` patterns without printing them.
fn skip(toks: &[Tok<'_>], pos: &mut usize, n: usize) {
    let mut scratch = String::new();
    for _ in 0..n {
        print_pat(toks, pos, &mut scratch);
    }
}
