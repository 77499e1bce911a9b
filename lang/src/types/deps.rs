//! The names a piece of code refers to, and the strongly connected
//! components of the top-level reference graph.
//!
//! The reference scan over-approximates: it collects every lower-case name
//! used, even one a local binding shadows. An extra edge can only merge
//! two top-level functions into one group (checked together, so less
//! polymorphic between themselves), never hide a dependency.
//!
//! Invariants: both the scan and Tarjan's algorithm use explicit stacks or
//! a grown stack, so 10,000 nested expressions or a chain of 10,000
//! functions cannot overflow the host stack.

use crate::ast::{Block, Clause, Expr, ExprKind, Stmt, StrPart};

/// Every lower-case name `e` refers to (with repeats).
pub fn expr_refs(e: &Expr, out: &mut Vec<String>) {
    stacker::maybe_grow(
        crate::types::STACK_RED_ZONE,
        crate::types::STACK_CHUNK,
        || expr_refs_inner(e, out),
    )
}

fn expr_refs_inner(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Var(v) => out.push(v.name.clone()),
        ExprKind::Interp(parts) => {
            for p in parts {
                if let StrPart::Expr(x) = p {
                    expr_refs(x, out);
                }
            }
        }
        ExprKind::List(items) | ExprKind::Tuple(items) => {
            items.iter().for_each(|i| expr_refs(i, out))
        }
        ExprKind::Record(fields) => fields.iter().for_each(|f| expr_refs(&f.value, out)),
        ExprKind::RecordUpdate { base, fields } => {
            expr_refs(base, out);
            fields.iter().for_each(|f| expr_refs(&f.value, out));
        }
        ExprKind::Field { expr, .. } => expr_refs(expr, out),
        ExprKind::Call { callee, args } => {
            expr_refs(callee, out);
            args.iter().for_each(|a| expr_refs(a, out));
        }
        ExprKind::Perform(p) => p.args.iter().for_each(|a| expr_refs(a, out)),
        ExprKind::Lambda(l) => block_refs(&l.body, out),
        ExprKind::Block(b) => block_refs(b, out),
        ExprKind::If {
            branches,
            otherwise,
        } => {
            for (c, b) in branches {
                expr_refs(c, out);
                block_refs(b, out);
            }
            if let Some(b) = otherwise {
                block_refs(b, out);
            }
        }
        ExprKind::Match { scrutinee, arms } => {
            expr_refs(scrutinee, out);
            for a in arms {
                if let Some(g) = &a.guard {
                    expr_refs(g, out);
                }
                expr_refs(&a.body, out);
            }
        }
        ExprKind::Handle(h) => {
            expr_refs(&h.body, out);
            if let Some(s) = &h.state {
                expr_refs(&s.init, out);
            }
            for c in &h.clauses {
                match c {
                    Clause::Op { body, .. } | Clause::Return { body, .. } => expr_refs(body, out),
                }
            }
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            expr_refs(lhs, out);
            expr_refs(rhs, out);
        }
        ExprKind::Unary { expr, .. } => expr_refs(expr, out),
        ExprKind::Error
        | ExprKind::Unit
        | ExprKind::Bool(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Ctor(_) => {}
    }
}

/// Every lower-case name a block refers to.
pub fn block_refs(b: &Block, out: &mut Vec<String>) {
    for s in &b.stmts {
        stmt_refs(s, out);
    }
}

/// Every lower-case name a statement refers to.
pub fn stmt_refs(s: &Stmt, out: &mut Vec<String>) {
    match s {
        Stmt::Expr(e) => expr_refs(e, out),
        Stmt::Let(l) => expr_refs(&l.value, out),
        Stmt::Fn(f) => {
            if let Some(b) = &f.body {
                block_refs(b, out);
            }
        }
    }
}

/// The strongly connected components of a graph given as adjacency lists,
/// each component's members in ascending order, components in an order
/// where every component comes after those it has edges to.
pub fn components(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let mut next = 0usize;
    for root in 0..n {
        if index.get(root).copied() != Some(usize::MAX) {
            continue;
        }
        // Each frame: the node and the position in its edge list.
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some((v, i)) = work.pop() {
            if i == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            let succ = edges.get(v).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&w) = succ.get(i) {
                work.push((v, i + 1));
                if w >= n {
                    continue;
                }
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            // All successors done: fold into the parent, maybe emit.
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.sort_unstable();
                out.push(comp);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::components;

    #[test]
    fn components_come_after_their_dependencies() {
        // 0 -> 1 -> 2 -> 1, 3 alone
        let g = vec![vec![1], vec![2], vec![1], vec![]];
        let c = components(&g);
        assert_eq!(c, vec![vec![1, 2], vec![0], vec![3]]);
    }

    #[test]
    fn long_chains_do_not_recurse() {
        let n = 100_000;
        let g: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        assert_eq!(components(&g).len(), n);
    }
}
