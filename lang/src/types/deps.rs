//! The strongly connected components of the top-level reference graph.
//!
//! The references are every variable an item uses ([`crate::ast::Expr::vars`]),
//! by name: an over-approximation, since a local binding may shadow one.
//! An extra edge can only merge two top-level functions into one group
//! (checked together, so less polymorphic between themselves), never hide
//! a dependency.
//!
//! Invariants: both the scan (on a grown stack) and Tarjan's algorithm
//! (with explicit stacks) handle 10,000 nested expressions or a chain of
//! 10,000 functions without overflowing the host stack.

/// The strongly connected components of a graph given as adjacency lists,
/// each component's members in ascending order, components in an order
/// where every component comes after those it has edges to.
pub(super) fn components(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
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
