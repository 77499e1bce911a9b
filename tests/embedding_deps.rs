//! Embedding Writ does not pull in the command line: the library built
//! without its default `cli` feature depends on none of the crates the
//! `writ` binary uses for its arguments, line editing, Ctrl-C and
//! terminal (clap, rustyline, ctrlc, nix), nor the MCP server's (rmcp,
//! tokio). Checked on the dependency
//! graph cargo resolves (`cargo tree`, from the lock file, offline).

use std::collections::BTreeSet;
use std::process::Command;

/// The packages `writ` depends on (normal dependencies, transitively),
/// with the given feature flags.
fn dependencies(flags: &[&str]) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--package", "writ", "--edges", "normal"])
        .args([
            "--prefix",
            "none",
            "--format",
            "{p}",
            "--offline",
            "--locked",
        ])
        .args(flags)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo tree: {e}"));
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

const COMMAND_LINE: [&str; 6] = ["clap", "rustyline", "ctrlc", "nix", "rmcp", "tokio"];

#[test]
fn the_library_alone_pulls_in_no_command_line_crate() {
    let embedded = dependencies(&["--no-default-features"]);
    assert!(embedded.contains("writ-host"), "{embedded:?}");
    for name in COMMAND_LINE {
        assert!(
            !embedded.contains(name),
            "{name} is a dependency without `cli`"
        );
    }
}

#[test]
fn the_command_line_has_them() {
    let full = dependencies(&[]);
    for name in ["clap", "rustyline", "ctrlc", "rmcp", "tokio"] {
        assert!(
            full.contains(name),
            "{name} is missing with `cli`: {full:?}"
        );
    }
}
