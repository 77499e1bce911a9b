//! The server's side of the stdio transport: one JSON-RPC message a line
//! on standard input, one a line on standard output.
//!
//! Invariants: standard output carries protocol messages only, each
//! written whole under one lock; a line longer than
//! [`limits::MAX_MESSAGE_BYTES`] is dropped unread, answered with an
//! `Invalid Request` error, and the lines after it are served; a line
//! that is not JSON is answered with a `Parse error` (id `null`), and one
//! that is JSON but not a JSON-RPC message (an array, an object that is
//! not a request, notification or response) with an `Invalid Request`
//! error (with its id when it has one), a malformed notification (a
//! `method` and no id) not at all, as notifications never are; reading is cancel-safe (the
//! service polls it among other futures: a partial line is kept for the
//! next call).

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::limits;

/// JSON-RPC's code for text that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a request it can serve.
const INVALID_REQUEST: i64 = -32600;

/// Lines in, lines out.
pub struct Lines<R, W> {
    reader: BufReader<R>,
    /// The line read so far (kept across cancelled reads).
    line: Vec<u8>,
    /// The current line passed the bound: its bytes are skipped up to
    /// its end.
    skipping: bool,
    writer: Arc<Mutex<W>>,
}

/// The transport over this process's standard input and output.
pub fn stdio() -> Lines<tokio::io::Stdin, tokio::io::Stdout> {
    Lines::new(tokio::io::stdin(), tokio::io::stdout())
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Lines<R, W> {
    /// Read from `reader`, write to `writer`.
    pub fn new(reader: R, writer: W) -> Self {
        Lines {
            reader: BufReader::new(reader),
            line: Vec::new(),
            skipping: false,
            writer: Arc::new(Mutex::new(writer)),
        }
    }
}

/// Write one message (a line) to `writer`.
async fn write_line<W: AsyncWrite + Unpin>(writer: &Mutex<W>, text: &[u8]) -> std::io::Result<()> {
    let mut w = writer.lock().await;
    w.write_all(text).await?;
    w.write_all(b"\n").await?;
    w.flush().await
}

/// The error response to a message that could not be served.
fn error_line(id: Value, code: i64, message: &str) -> Vec<u8> {
    let doc = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    });
    serde_json::to_vec(&doc).unwrap_or_default()
}

/// What one line holds.
enum Parsed {
    /// A message to serve.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to serve or answer (an empty line, a notification the
    /// SDK does not know).
    Nothing,
    /// An error response to send back.
    Answer(Vec<u8>),
}

fn parse(line: &[u8]) -> Parsed {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Nothing;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Parsed::Answer(error_line(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: expected one JSON-RPC message as JSON on one line: {e}"),
            ));
        }
    };
    let id = value.get("id").cloned();
    let notification = id.is_none() && value.get("method").is_some_and(Value::is_string);
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(m) => Parsed::Message(Box::new(m)),
        // A notification is never answered, even in error.
        Err(_) if notification => Parsed::Nothing,
        Err(e) => Parsed::Answer(error_line(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            &format!(
                "Invalid Request: expected one JSON-RPC request, notification or response object: {e}"
            ),
        )),
    }
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        async move {
            let text = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            write_line(&writer, &text).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // Read up to the end of the line, or one byte past the bound.
            let room = (limits::MAX_MESSAGE_BYTES + 1).saturating_sub(self.line.len());
            let read = (&mut self.reader)
                .take(room as u64)
                .read_until(b'\n', &mut self.line)
                .await;
            let n = match read {
                Ok(n) => n,
                Err(e) => {
                    err_println!("writ mcp: cannot read standard input: {e}");
                    return None;
                }
            };
            if self.line.last() != Some(&b'\n') {
                if self.line.len() > limits::MAX_MESSAGE_BYTES {
                    // Too long: drop what was read, skip to its end.
                    self.skipping = true;
                    self.line.clear();
                    continue;
                }
                if n > 0 {
                    // The end of input (or more of the line) comes next.
                    continue;
                }
                if self.line.is_empty() || self.skipping {
                    return None;
                }
                // The input ended inside a line: it is served, and the
                // next call finds the end.
            }
            let line = std::mem::take(&mut self.line);
            let answer = if self.skipping {
                self.skipping = false;
                Parsed::Answer(error_line(
                    Value::Null,
                    INVALID_REQUEST,
                    &format!(
                        "Invalid Request: a message is at most {} bytes; this one was longer and was not read",
                        limits::MAX_MESSAGE_BYTES
                    ),
                ))
            } else {
                parse(line.strip_suffix(b"\n").unwrap_or(&line))
            };
            match answer {
                Parsed::Message(m) => return Some(*m),
                Parsed::Nothing => {}
                Parsed::Answer(a) => {
                    // Written by its own task: a cancelled `receive` never
                    // leaves half a line on standard output.
                    let writer = Arc::clone(&self.writer);
                    tokio::spawn(async move {
                        let _ = write_line(&writer, &a).await;
                    });
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.writer.lock().await.flush().await
    }
}
