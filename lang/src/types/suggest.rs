//! "Did you mean": the closest known name to a misspelt one, and tables of
//! names other languages use for what Writ calls something else.
//!
//! Distance is the optimal-string-alignment edit distance (insertions,
//! deletions, substitutions, adjacent transpositions), compared without
//! regard to case; a candidate is offered only when the distance is at most
//! a third of the name's length (at least 1), and ties go to the
//! alphabetically first candidate, so suggestions are deterministic.

/// The edit distance between `a` and `b`, ignoring case.
pub(super) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut prev2 = vec![0usize; m + 1];
    let mut prev: Vec<usize> = (0..=m).collect();
    let mut cur = vec![0usize; m + 1];
    for i in 1..=n {
        cur[0] = i;
        for j in 1..=m {
            let cost = usize::from(a.get(i - 1) != b.get(j - 1));
            let mut best = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a.get(i - 1) == b.get(j - 2) && a.get(i - 2) == b.get(j - 1) {
                best = best.min(prev2[j - 2] + 1);
            }
            cur[j] = best;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.get(m).copied().unwrap_or(usize::MAX)
}

/// The closest candidate to `name`, if one is close enough.
pub(super) fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    // One- and two-letter names are too short for a guess to mean much.
    let len = name.chars().count();
    let limit = if len <= 2 { 0 } else { (len / 3).max(1) };
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name || (limit == 0 && !c.eq_ignore_ascii_case(name)) {
            continue;
        }
        // Skip candidates whose length alone rules them out.
        if c.chars().count().abs_diff(name.chars().count()) > limit {
            continue;
        }
        let d = distance(name, c);
        if d <= limit && best.is_none_or(|(bd, bc)| d < bd || (d == bd && c < bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c.to_string())
}

/// Names in backquotes, separated by commas: `` `a`, `b` ``.
pub(super) fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writ's name for a type another language calls `name`.
pub(super) fn type_alias(name: &str) -> Option<&'static str> {
    Some(match name {
        "String" | "string" | "str" | "Text" => "Str",
        "Integer" | "int" | "i32" | "i64" | "Long" | "Number" | "usize" => "Int",
        "float" | "f32" | "f64" | "Double" | "double" | "Real" => "Float",
        "bool" | "Boolean" | "boolean" => "Bool",
        "Array" | "Vec" | "Vector" | "Seq" | "list" => "List",
        "Dict" | "HashMap" | "Dictionary" | "Object" | "Record" => "Map",
        "Maybe" | "Optional" => "Option",
        "Either" => "Result",
        "Void" | "void" | "None" | "Nothing" | "Empty" => "Unit",
        _ => return None,
    })
}

/// Help for a constructor name another language uses.
pub(super) fn ctor_alias(name: &str) -> Option<String> {
    Some(
        match name {
            "Just" => "Writ's optional values are `Some(x)` and `None`",
            "Nothing" | "Null" | "Nil" | "Undefined" => {
                "Writ has no null: an absent value is `None` (of `Option`)"
            }
            "Right" => "Writ's results are `Ok(x)` and `Err(e)`",
            "Left" => "Writ's results are `Ok(x)` and `Err(e)`",
            "Error" => "a failed `Result` is `Err(e)`",
            "True" | "False" => "the booleans are `true` and `false`, in lower case",
            _ => return None,
        }
        .to_string(),
    )
}

/// Help for a name from another language's standard library.
pub(super) fn keyword_help(name: &str) -> Option<String> {
    Some(
        match name {
            "print" | "println" | "printf" | "puts" | "console" | "echo" => {
                "printing is an effect: `Log.info(\"...\")`"
            }
            "len" | "length" | "size" | "count" => "use `list.length(xs)` or `str.length(s)`",
            "str" | "string" | "to_string" | "toString" | "show" => {
                "to turn a value into text, interpolate it: `\"${x}\"`, or use `str.from(x)`"
            }
            "int" | "float" | "parseInt" | "parseFloat" => {
                "convert with `str.parse_int`, `str.parse_float`, `math.to_int` or `math.to_float`"
            }
            "this" | "self" => "Writ has no objects; pass the value as a parameter",
            "nil" | "null" | "undefined" | "None" => {
                "Writ has no null: an absent value is `None` (of `Option`)"
            }
            "raise" | "throw" | "panic" | "error" => {
                "to stop with an error, perform `Fail.fail(\"message\")`, or return an `Err(...)`"
            }
            _ => return None,
        }
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits_and_swaps() {
        assert_eq!(distance("lenght", "length"), 1);
        assert_eq!(distance("map", "map"), 0);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("Flight", "flight"), 0);
    }

    #[test]
    fn closest_respects_the_limit() {
        let names = ["length", "map", "filter"];
        assert_eq!(
            closest("lenght", names.iter().copied()),
            Some("length".into())
        );
        assert_eq!(
            closest("fliter", names.iter().copied()),
            Some("filter".into())
        );
        assert_eq!(closest("zzz", names.iter().copied()), None);
    }
}
