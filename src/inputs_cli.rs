//! A program's inputs on the command line (decision 009): `--input-type
//! NAME=TYPE`, repeated, declares each input with its Writ type (for
//! `writ check` and `writ run`); `--inputs FILE.json` gives their values,
//! one JSON object by input name (for `writ run`); `--replay FILE.json`
//! gives a recording of reads (`writ run --record`).
//!
//! Invariants: a malformed `--input-type` (no `=`), an unreadable or
//! oversized values file, or one that is not a JSON object, is a usage
//! error (exit 2) and nothing is checked or run. Whether the values match
//! the declared types is the run's business (`E4007`, `E4008`).

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use writ::InputDecl;

/// The largest values file read, in bytes (16 MiB): a run's memory limit
/// bounds what it converts, this bounds what is read to get there.
pub const MAX_INPUTS_BYTES: u64 = 16 * 1024 * 1024;

/// The inputs declared by `--input-type NAME=TYPE` arguments, in order.
pub fn declared(args: &[String]) -> Result<Vec<InputDecl>, ExitCode> {
    args.iter()
        .map(|a| {
            declaration(a).ok_or_else(|| {
                err_println!(
                    "error: expected `--input-type NAME=TYPE` (like `request={{ to: Str }}`), found `{a}`"
                );
                ExitCode::from(2)
            })
        })
        .collect()
}

/// One input's declaration `NAME=TYPE` (as `--input-type` and a test
/// file's `input_types` take it); `None` without the `=`.
pub fn declaration(a: &str) -> Option<InputDecl> {
    let (name, ty) = a.split_once('=')?;
    Some(InputDecl::new(name.trim(), ty.trim()))
}

/// The values in the `--inputs` file at `path` (none without one): a JSON
/// object, each member an input's value.
pub fn values(path: Option<&Path>) -> Result<serde_json::Map<String, serde_json::Value>, ExitCode> {
    let Some(path) = path else {
        return Ok(serde_json::Map::new());
    };
    match read_json("--inputs", path, MAX_INPUTS_BYTES)? {
        serde_json::Value::Object(m) => Ok(m),
        _ => Err(usage_error(
            "--inputs",
            path,
            "expected a JSON object of the inputs' values by name, found another JSON value",
        )),
    }
}

/// The recording of reads in the `--replay` file at `path`, or the usage
/// error (exit 2) when it cannot be read (at most [`MAX_INPUTS_BYTES`]) or
/// is not a recording.
pub fn recording(path: &Path) -> Result<writ_host::engine::Recording, ExitCode> {
    let doc = read_json("--replay", path, MAX_INPUTS_BYTES)?;
    writ_host::engine::Recording::from_json(&doc).map_err(|why| usage_error("--replay", path, &why))
}

/// The usage error (exit 2) about the file `flag` names, after saying why.
pub fn usage_error(flag: &str, path: &Path, why: &str) -> ExitCode {
    err_println!("error: in `{flag} {}`: {why}", path.display());
    ExitCode::from(2)
}

/// The JSON value in the file `flag` names: at most `max` bytes are read
/// (more, or a file that cannot be read or is not JSON, is a usage error).
pub fn read_json(flag: &str, path: &Path, max: u64) -> Result<serde_json::Value, ExitCode> {
    json_file(path, max).map_err(|why| usage_error(flag, path, &why))
}

/// The JSON value in the file at `path`, at most `max` bytes, or why it
/// cannot be had.
pub fn json_file(path: &Path, max: u64) -> Result<serde_json::Value, String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(format!("expected at most {max} bytes, found more"));
    }
    serde_json::from_slice(&bytes).map_err(|e| format!("expected JSON, found an error: {e}"))
}
