//! DAP's base protocol: `Content-Length` framed JSON messages in both
//! directions, and the shapes of what the adapter sends (responses, events,
//! reverse requests have no use here).
//!
//! Reading never gives up on a bad message: a header without a length, a
//! length past [`MAX_MESSAGE`] or a body that is not JSON is reported as
//! [`Incoming::Malformed`] and reading goes on at the next header, so one
//! bad client write does not end the session.

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt as _, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _,
};

/// The longest message body accepted (a setBreakpoints of a huge file's
/// lines is far below it).
pub const MAX_MESSAGE: usize = 64 << 20;

/// One request of the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub seq: i64,
    pub command: String,
    /// `{}` when the client sent none.
    pub arguments: Value,
}

/// What the reader got.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request(Request),
    /// Not a request the adapter can answer by its seq: why, and the seq if
    /// the message had one (it is answered with an error then).
    Malformed {
        why: String,
        seq: Option<i64>,
    },
}

/// Read one framed message; `None` at the end of the stream.
pub async fn read_message<R: AsyncBufRead + Unpin>(r: &mut R) -> std::io::Result<Option<Incoming>> {
    let mut length: Option<usize> = None;
    let mut bad_header: Option<String> = None;
    let mut oversized: Option<usize> = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        if r.read_until(b'\n', &mut line).await? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if saw_header {
                break;
            }
            continue; // Blank lines between messages.
        }
        saw_header = true;
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) if n <= MAX_MESSAGE => length = Some(n),
                    Ok(n) => {
                        oversized = Some(n);
                        bad_header = Some(format!(
                            "Content-Length {n} is over the limit of {MAX_MESSAGE} bytes"
                        ))
                    }
                    Err(_) => {
                        bad_header = Some(format!("bad Content-Length: {}", clip(value.trim())))
                    }
                }
            }
            Some(_) => {} // Content-Type and any other header.
            None => bad_header = Some(format!("not a header line: {}", clip(text))),
        }
    }
    let Some(n) = length else {
        if let Some(over) = oversized {
            // Skipped, so that the next message's header is read as one.
            tokio::io::copy(&mut r.take(over as u64), &mut tokio::io::sink()).await?;
        }
        let why = bad_header.unwrap_or_else(|| "a message without Content-Length".into());
        return Ok(Some(Incoming::Malformed { why, seq: None }));
    };
    let mut body = vec![0u8; n];
    r.read_exact(&mut body).await?;
    Ok(Some(parse_request(&body)))
}

/// A body as a request, or why not.
pub fn parse_request(body: &[u8]) -> Incoming {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Malformed {
                why: format!("the message is not JSON: {e}"),
                seq: None,
            };
        }
    };
    let seq = value.get("seq").and_then(Value::as_i64);
    let malformed = |why: &str| Incoming::Malformed {
        why: why.to_string(),
        seq,
    };
    if value.get("type").and_then(Value::as_str) != Some("request") {
        return malformed("only requests are expected (\"type\": \"request\")");
    }
    let Some(seq) = seq else {
        return malformed("the request has no integer \"seq\"");
    };
    let Some(command) = value.get("command").and_then(Value::as_str) else {
        return malformed("the request has no \"command\"");
    };
    let arguments = match value.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(a) if a.is_object() => a.clone(),
        Some(_) => return malformed("\"arguments\" is not an object"),
    };
    Incoming::Request(Request {
        seq,
        command: command.to_string(),
        arguments,
    })
}

/// Write one message with its header.
pub async fn write_message<W: AsyncWrite + Unpin>(w: &mut W, msg: &Value) -> std::io::Result<()> {
    let body = serde_json::to_vec(msg).map_err(std::io::Error::other)?;
    w.write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await?;
    w.write_all(&body).await?;
    w.flush().await
}

/// A success response's message (its `seq` is set when sent).
pub fn response(req_seq: i64, command: &str, body: Value) -> Value {
    json!({"type": "response", "request_seq": req_seq, "success": true, "command": command, "body": body})
}

/// A failure response: `message` for the client's UI, and the same text as
/// `body.error`, the `Message` DAP clients show (no `variables`: a `{x}` in
/// it stays as it is).
pub fn error_response(req_seq: i64, command: &str, message: &str) -> Value {
    json!({
        "type": "response", "request_seq": req_seq, "success": false, "command": command,
        "message": message,
        "body": {"error": {"id": 1, "format": message, "showUser": true}},
    })
}

/// An event's message.
pub fn event(name: &str, body: Value) -> Value {
    json!({"type": "event", "event": name, "body": body})
}

/// Echoed input, short.
pub fn clip(s: &str) -> String {
    const MAX: usize = 80;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}… ({} bytes)", &s[..i], s.len()),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(bytes: &[u8]) -> Vec<Incoming> {
        let mut r = tokio::io::BufReader::new(bytes);
        let mut out = Vec::new();
        while let Some(m) = read_message(&mut r).await.unwrap() {
            out.push(m);
        }
        out
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[tokio::test]
    async fn requests_and_bad_messages_in_one_stream() {
        let good = r#"{"seq":1,"type":"request","command":"threads"}"#;
        let stream = format!(
            "{}garbage line\r\n\r\n{}{}{}",
            frame(good),
            frame("{not json"),
            frame(r#"{"seq":7,"type":"request"}"#),
            frame(r#"{"seq":8,"type":"request","command":"next","arguments":{"threadId":3}}"#),
        );
        let got = read_all(stream.as_bytes()).await;
        assert_eq!(got.len(), 5, "{got:?}");
        assert!(
            matches!(&got[0], Incoming::Request(r) if r.command == "threads" && r.arguments == json!({}))
        );
        assert!(
            matches!(&got[1], Incoming::Malformed { why, seq: None } if why.contains("not a header"))
        );
        assert!(matches!(&got[2], Incoming::Malformed { why, .. } if why.contains("not JSON")));
        assert!(
            matches!(&got[3], Incoming::Malformed { seq: Some(7), why } if why.contains("command"))
        );
        assert!(
            matches!(&got[4], Incoming::Request(r) if r.seq == 8 && r.arguments["threadId"] == 3)
        );
    }

    #[tokio::test]
    async fn lengths_out_of_range_are_reported() {
        let got = read_all(b"Content-Length: 99999999999\r\n\r\n").await;
        assert!(
            matches!(&got[0], Incoming::Malformed { why, .. } if why.contains("over the limit"))
        );
        let got = read_all(b"Content-Length: x\r\n\r\n").await;
        assert!(
            matches!(&got[0], Incoming::Malformed { why, .. } if why.contains("bad Content-Length"))
        );
    }

    #[test]
    fn error_bodies_carry_the_message() {
        let r = error_response(3, "evaluate", "no {x}");
        assert_eq!(r["message"], "no {x}");
        assert_eq!(r["body"]["error"]["format"], "no {x}");
        assert_eq!(r["success"], false);
    }

    #[tokio::test]
    async fn an_oversized_body_is_skipped() {
        let body = r#"{"seq":2,"type":"request","command":"threads"}"#;
        let skipped = "y".repeat(10);
        // A length over the limit, then its body, then a good message.
        let mut stream = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1).into_bytes();
        stream.extend(std::iter::repeat_n(b'x', MAX_MESSAGE + 1));
        stream.extend(frame(body).into_bytes());
        stream.extend(skipped.into_bytes());
        let got = read_all(&stream).await;
        assert!(
            matches!(&got[0], Incoming::Malformed { why, .. } if why.contains("over the limit"))
        );
        assert!(
            matches!(&got[1], Incoming::Request(r) if r.seq == 2),
            "{:?}",
            got.get(1)
        );
    }
}
