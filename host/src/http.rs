//! The `Http` capability's I/O: real requests (ureq) with redirects
//! followed by hand, each hop handed to the caller (which checks and
//! audits it) before it is requested; size and time limits; and the file
//! of recorded responses served instead of the network.

use std::collections::HashMap;
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
use std::time::Duration;

use writ_runtime::clock::Instant;

use writ_runtime::RunError;

use crate::engine::unavailable;
use crate::url::{self, Url};

/// A file of recorded responses: `[[response]]` tables with `url` and
/// `body`, and nothing else. Read strictly, as a policy is: a key or table
/// it does not know (a misspelt `[[responses]]`, a `status`), a
/// `[response]` that is not a list, a URL recorded twice or a file with no
/// response at all is refused, so that a mistake never leaves a run
/// denied every request (or served another answer) without a word.
pub(crate) fn load_recorded(
    path: &str,
    files: &crate::engine::Files,
) -> Result<HashMap<String, String>, RunError> {
    const SHAPE: &str =
        "write each response as a table `[[response]]` with `url = \"...\"` and `body = \"...\"`";
    let text = files(path)
        .map_err(|e| unavailable(format!("cannot read the recorded responses {path}: {e}")))?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| {
        unavailable(format!(
            "the recorded responses {path} are not valid TOML: {e}"
        ))
    })?;
    let refused = |what: String, help: &str| {
        unavailable(format!("expected recorded responses in {path}, {what}"))
            .with_help(format!("{help}; nothing was run"))
    };
    if let Some(key) = table.keys().find(|k| k.as_str() != "response") {
        return Err(refused(
            format!("found `{}`, which is not `response`", shown_key(key)),
            SHAPE,
        ));
    }
    let list = match table.get("response") {
        None => return Err(refused("found no `[[response]]`".to_string(), SHAPE)),
        Some(toml::Value::Array(list)) => list,
        Some(_) => {
            return Err(refused(
                "found `response` as a single value, not a list of `[[response]]` tables"
                    .to_string(),
                "write `[[response]]` (two brackets) before each response",
            ));
        }
    };
    let mut out = HashMap::new();
    for (i, entry) in list.iter().enumerate() {
        let n = i + 1;
        let Some(entry) = entry.as_table() else {
            return Err(refused(format!("found response {n} not a table"), SHAPE));
        };
        if let Some(key) = entry.keys().find(|k| !matches!(k.as_str(), "url" | "body")) {
            return Err(refused(
                format!(
                    "found `{}` in response {n}, which takes only `url` and `body`",
                    shown_key(key)
                ),
                "a recorded response is a body served with status 200: leave out other keys",
            ));
        }
        let url = entry.get("url").and_then(toml::Value::as_str);
        let body = entry.get("body").and_then(toml::Value::as_str);
        let (Some(u), Some(b)) = (url, body) else {
            return Err(refused(
                format!(
                    "found response {n} without a `url` and a `body` of text: each [[response]] needs a `url` and a `body`"
                ),
                SHAPE,
            ));
        };
        let key = url::parse(u)
            .map_err(|e| unavailable(format!("a recorded URL in {path} is malformed: {u}: {e}")))?;
        let key = key.to_string();
        if out.contains_key(&key) {
            return Err(refused(
                format!("found {key} recorded twice (response {n} again)"),
                "record each URL once (URLs are compared normalised: `HTTPS://A.example/x` and `https://a.example/x` are one)",
            ));
        }
        out.insert(key, b.to_string());
    }
    Ok(out)
}

/// A key of a recorded-responses file as a message shows it: escaped, and
/// at most its first 64 bytes.
fn shown_key(key: &str) -> String {
    writ_runtime::display::safe_start(key, 64, writ_runtime::display::LineBreaks::Escape)
}

/// Why a request gave no body.
pub(crate) enum Failure<E> {
    /// The request to this URL (the target or a redirect hop) failed.
    At(Box<Url>, String),
    /// The caller refused a redirect hop (never, in a web page: it
    /// follows no redirect).
    #[cfg_attr(all(target_arch = "wasm32", target_os = "unknown"), allow(dead_code))]
    Refused(E),
}

/// A real request: redirects are followed by hand, at most 5, and each
/// hop is handed to `hop(from, to)` before it is requested (an error there
/// ends the request); the body is read up to the grant's limit. The whole
/// request, its hops included, takes at most the grant's timeout, and ends
/// by `run_until` (when the run's time is up) if that comes first.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub(crate) fn fetch<E>(
    target: &Url,
    body: Option<&str>,
    scope: &crate::policy::HttpScope,
    run_until: Option<Instant>,
    hop: &mut dyn FnMut(&Url, &Url) -> Result<(), E>,
) -> Result<String, Failure<E>> {
    let timeout = Duration::from_millis(scope.timeout_ms);
    let request_until = Instant::now() + timeout;
    let until = run_until.map_or(request_until, |r| r.min(request_until));
    let config = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .build();
    let agent: ureq::Agent = config.into();
    let mut url = target.clone();
    let too_many = |url: &Url| {
        Failure::At(
            Box::new(url.clone()),
            format!("{target} redirected more than 5 times"),
        )
    };
    for followed in 0..=5 {
        let text = url.to_string();
        let failed = |why: String| Failure::At(Box::new(url.clone()), why);
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(failed(format!(
                "the request to {text} took longer than {} ms",
                timeout.as_millis()
            )));
        }
        let response = match body {
            Some(b) => agent
                .post(&text)
                .config()
                .timeout_global(Some(left))
                .build()
                .send(b),
            None => agent
                .get(&text)
                .config()
                .timeout_global(Some(left))
                .build()
                .call(),
        };
        let mut response =
            response.map_err(|e| failed(format!("the request to {text} failed: {e}")))?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| failed(format!("{text} redirected without a location")))?
                .to_string();
            let next = url::parse(&url::resolve(&url, &location))
                .map_err(|e| failed(format!("{text} redirected to a malformed URL: {e}")))?;
            if followed == 5 {
                return Err(too_many(&url));
            }
            hop(&url, &next).map_err(Failure::Refused)?;
            url = next;
            continue;
        }
        if !(200..300).contains(&status) {
            return Err(failed(format!("{text} answered with status {status}")));
        }
        let limit = scope.max_response_bytes;
        let bytes = response
            .body_mut()
            .with_config()
            .limit(limit.saturating_add(1))
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => failed(format!(
                    "the response of {text} is larger than {limit} bytes"
                )),
                e => failed(format!("the response of {text} could not be read: {e}")),
            })?;
        if bytes.len() as u64 > limit {
            return Err(failed(format!(
                "the response of {text} is larger than {limit} bytes"
            )));
        }
        return String::from_utf8(bytes)
            .map_err(|_| failed(format!("the response of {text} is not UTF-8 text")));
    }
    Err(too_many(&url))
}

/// A web page has no network of its own (the playground's host answers
/// `Http` only from recorded responses): every request that reaches here
/// fails, and the policy host denies it.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub(crate) fn fetch<E>(
    target: &Url,
    _body: Option<&str>,
    _scope: &crate::policy::HttpScope,
    _run_until: Option<Instant>,
    _hop: &mut dyn FnMut(&Url, &Url) -> Result<(), E>,
) -> Result<String, Failure<E>> {
    Err(Failure::At(
        Box::new(target.clone()),
        format!("{target} has no recorded response, and this host has no network"),
    ))
}
