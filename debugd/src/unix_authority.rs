//! Stock gRPC clients on a Unix socket: grpcio (gRPC C core), grpc-java and
//! others send the socket path, percent-encoded or not, as the HTTP/2
//! `:authority` (e.g. `%2Ftmp%2Fd.sock`), which h2 rejects as malformed
//! (RST_STREAM PROTOCOL_ERROR) before tonic sees the request. The authority
//! means nothing on a Unix socket, so [`AuthorityFix`] wraps each accepted
//! connection and, in the client's HEADERS frames, overwrites such a value
//! with `localhost` padded with `x` to the same length, in place: frame
//! sizes and the HPACK dynamic table (whose entry sizes count value octets)
//! stay what the client computed. Values that are Huffman-coded are left
//! alone (the C core sends `:authority` as a plain literal).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const FRAME_HEADERS: u8 = 0x1;
const FLAG_END_HEADERS: u8 = 0x4;
const FLAG_PADDED: u8 = 0x8;
const FLAG_PRIORITY: u8 = 0x20;
/// HEADERS frames larger than this pass through untouched: h2's default
/// SETTINGS_MAX_FRAME_SIZE, which the server advertises (tonic sets no
/// other), so h2 refuses a larger frame anyway, and a client cannot make
/// the daemon hold more than this per connection.
const MAX_HELD: usize = 16 * 1024;

/// Where the reader is in the client's byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the connection preface.
    Preface,
    /// At a frame header.
    Frame,
    /// Inside a payload that passes through unchanged: bytes left.
    Skip(usize),
    /// Not HTTP/2 as expected: everything passes through.
    Through,
}

/// A connection whose HTTP/2 `:authority` values are made acceptable to h2.
pub struct AuthorityFix<S> {
    inner: S,
    state: State,
    /// Bytes read from `inner`, not yet examined.
    raw: Vec<u8>,
    /// Examined bytes, ready for the reader.
    out: Vec<u8>,
    eof: bool,
}

impl<S> AuthorityFix<S> {
    pub fn new(inner: S) -> Self {
        AuthorityFix {
            inner,
            state: State::Preface,
            raw: Vec::new(),
            out: Vec::new(),
            eof: false,
        }
    }

    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// Move what can be decided from `raw` to `out`.
    fn process(&mut self) {
        loop {
            match self.state {
                State::Through => {
                    self.out.append(&mut self.raw);
                    return;
                }
                State::Preface => {
                    if self.raw.len() < PREFACE.len() {
                        if !PREFACE.starts_with(&self.raw) {
                            self.state = State::Through;
                            continue;
                        }
                        return;
                    }
                    self.state = if self.raw.starts_with(PREFACE) {
                        State::Frame
                    } else {
                        State::Through
                    };
                    self.out.extend(self.raw.drain(..PREFACE.len()));
                }
                State::Skip(left) => {
                    let n = left.min(self.raw.len());
                    self.out.extend(self.raw.drain(..n));
                    if n < left {
                        self.state = State::Skip(left - n);
                        return;
                    }
                    self.state = State::Frame;
                }
                State::Frame => {
                    if self.raw.len() < 9 {
                        return;
                    }
                    let len = usize::from(self.raw[0]) << 16
                        | usize::from(self.raw[1]) << 8
                        | usize::from(self.raw[2]);
                    let (kind, flags) = (self.raw[3], self.raw[4]);
                    if kind == FRAME_HEADERS && flags & FLAG_END_HEADERS != 0 && len <= MAX_HELD {
                        if self.raw.len() < 9 + len {
                            return;
                        }
                        fix_headers_payload(&mut self.raw[9..9 + len], flags);
                        self.out.extend(self.raw.drain(..9 + len));
                    } else {
                        self.out.extend(self.raw.drain(..9));
                        self.state = State::Skip(len);
                    }
                }
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for AuthorityFix<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if buf.remaining() == 0 {
            // No room: nothing is read (the caller asked for 0 bytes; as
            // every tokio reader, Ready with nothing filled), nothing is
            // taken from `inner` or marked as the end.
            return Poll::Ready(Ok(()));
        }
        loop {
            if !this.out.is_empty() {
                let n = this.out.len().min(buf.remaining());
                buf.put_slice(&this.out[..n]);
                this.out.drain(..n);
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut rb = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut rb))?;
            if rb.filled().is_empty() {
                this.eof = true;
                this.out.append(&mut this.raw);
                continue;
            }
            this.raw.extend_from_slice(rb.filled());
            this.process();
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for AuthorityFix<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

impl tonic::transport::server::Connected for AuthorityFix<tokio::net::UnixStream> {
    type ConnectInfo = <tokio::net::UnixStream as tonic::transport::server::Connected>::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.inner.connect_info()
    }
}

/// Rewrite bad `:authority` values in one HEADERS frame's payload.
fn fix_headers_payload(payload: &mut [u8], flags: u8) {
    let mut start = 0;
    let mut pad = 0;
    if flags & FLAG_PADDED != 0 {
        let Some(&p) = payload.first() else { return };
        pad = usize::from(p);
        start = 1;
    }
    if flags & FLAG_PRIORITY != 0 {
        start += 5;
    }
    let Some(end) = payload.len().checked_sub(pad) else {
        return;
    };
    if start <= end {
        fix_header_block(&mut payload[start..end]);
    }
}

/// Walk an HPACK header block; overwrite plain-literal `:authority` values
/// that h2 would refuse. Stops at anything it cannot parse.
pub fn fix_header_block(block: &mut [u8]) -> Option<()> {
    let mut i = 0;
    while i < block.len() {
        let b = block[i];
        let prefix = if b & 0x80 != 0 {
            // Indexed field: nothing to change.
            read_int(block, &mut i, 7)?;
            continue;
        } else if b & 0xc0 == 0x40 {
            6 // literal with incremental indexing
        } else if b & 0xe0 == 0x20 {
            read_int(block, &mut i, 5)?; // dynamic table size update
            continue;
        } else {
            4 // literal without indexing / never indexed
        };
        let index = read_int(block, &mut i, prefix)?;
        let is_authority = if index == 0 {
            let (huff, range) = read_string(block, &mut i)?;
            !huff && &block[range] == b":authority"
        } else {
            index == 1
        };
        let (huff, range) = read_string(block, &mut i)?;
        if is_authority && !huff && !valid_authority(&block[range.clone()]) {
            for (k, byte) in block[range].iter_mut().enumerate() {
                *byte = *b"localhost".get(k).unwrap_or(&b'x');
            }
        }
    }
    Some(())
}

/// An HPACK integer with an N-bit prefix at `block[*i]`.
fn read_int(block: &[u8], i: &mut usize, prefix: u32) -> Option<usize> {
    let mask = (1u16 << prefix) as u8 - 1;
    let mut value = usize::from(*block.get(*i)? & mask);
    *i += 1;
    if value < usize::from(mask) {
        return Some(value);
    }
    let mut shift = 0u32;
    loop {
        let b = *block.get(*i)?;
        *i += 1;
        value = value.checked_add(usize::from(b & 0x7f).checked_shl(shift)?)?;
        if b & 0x80 == 0 {
            return Some(value);
        }
        shift += 7;
        if shift > 28 {
            return None;
        }
    }
}

/// An HPACK string: (Huffman-coded, byte range of its octets).
fn read_string(block: &[u8], i: &mut usize) -> Option<(bool, std::ops::Range<usize>)> {
    let huff = *block.get(*i)? & 0x80 != 0;
    let len = read_int(block, i, 7)?;
    let end = i.checked_add(len)?;
    if end > block.len() {
        return None;
    }
    let range = *i..end;
    *i = end;
    Some((huff, range))
}

/// Characters h2 accepts in a host[:port] authority (a conservative set).
fn valid_authority(v: &[u8]) -> bool {
    v.iter()
        .all(|&c| c.is_ascii_alphanumeric() || b"-._~:[]".contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A literal with incremental indexing, name index `index`, plain value.
    fn literal(index: u8, value: &[u8]) -> Vec<u8> {
        let mut v = vec![0x40 | index, value.len() as u8];
        v.extend_from_slice(value);
        v
    }

    #[test]
    fn socket_paths_become_localhost_of_the_same_length() {
        // :method GET (indexed 2), :authority %2Ftmp%2Fd.sock, te: trailers (literal name).
        let mut block = vec![0x82];
        block.extend(literal(1, b"%2Ftmp%2Fd.sock"));
        block.extend([0x00, 2, b't', b'e', 8]);
        block.extend_from_slice(b"trailers");
        let before = block.clone();
        fix_header_block(&mut block).unwrap();
        assert_eq!(block.len(), before.len());
        assert_eq!(&block[3..18], b"localhostxxxxxx");
        assert_eq!(block[18..], before[18..], "other fields untouched");

        // A literal name `:authority`, never indexed; a path without encoding.
        let mut block = vec![0x10, 10];
        block.extend_from_slice(b":authority");
        block.extend([4]);
        block.extend_from_slice(b"/a/b");
        fix_header_block(&mut block).unwrap();
        assert_eq!(&block[13..], b"loca");

        // Good authorities and Huffman-coded values stay.
        let mut good = literal(1, b"localhost:50051");
        let copy = good.clone();
        fix_header_block(&mut good).unwrap();
        assert_eq!(good, copy);
        let mut huff = vec![0x41, 0x83, 1, 2, 3];
        fix_header_block(&mut huff).unwrap();
        assert_eq!(huff, [0x41, 0x83, 1, 2, 3]);
    }

    #[test]
    fn truncated_blocks_are_left_alone() {
        let mut block = vec![0x41, 20, b'%'];
        assert!(fix_header_block(&mut block).is_none());
        assert_eq!(block, [0x41, 20, b'%']);
        assert!(read_int(&[0x7f, 0xff, 0xff, 0xff, 0xff, 0xff], &mut 0, 7).is_none());
    }

    #[tokio::test]
    async fn frames_split_across_reads_are_fixed() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let block = literal(1, b"%2Fs");
        let mut stream = PREFACE.to_vec();
        // A SETTINGS frame (type 4) with 6 payload bytes, then the HEADERS frame.
        stream.extend([0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0x10, 0]);
        stream.extend([0, 0, block.len() as u8, 1, FLAG_END_HEADERS, 0, 0, 0, 1]);
        stream.extend(&block);
        let (mut client, server) = tokio::io::duplex(64);
        let writer = {
            let stream = stream.clone();
            tokio::spawn(async move {
                for chunk in stream.chunks(5) {
                    client.write_all(chunk).await.unwrap();
                    tokio::task::yield_now().await;
                }
            })
        };
        let mut fixed = AuthorityFix::new(server);
        let mut got = Vec::new();
        fixed.read_to_end(&mut got).await.unwrap();
        writer.await.unwrap();
        let n = got.len();
        assert_eq!(got[..n - 4], stream[..n - 4]);
        assert_eq!(&got[n - 4..], b"loca");
    }

    /// The client's bytes: the preface and one HEADERS frame of `block`.
    fn headers_stream(block: &[u8]) -> Vec<u8> {
        let mut stream = PREFACE.to_vec();
        let len = block.len();
        stream.extend([(len >> 16) as u8, (len >> 8) as u8, len as u8]);
        stream.extend([FRAME_HEADERS, FLAG_END_HEADERS, 0, 0, 0, 1]);
        stream.extend(block);
        stream
    }

    async fn through_fix(stream: &[u8]) -> Vec<u8> {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let writer = {
            let stream = stream.to_vec();
            tokio::spawn(async move { client.write_all(&stream).await.unwrap() })
        };
        let mut got = Vec::new();
        AuthorityFix::new(server)
            .read_to_end(&mut got)
            .await
            .unwrap();
        writer.await.unwrap();
        got
    }

    #[tokio::test]
    async fn frames_past_h2s_max_frame_size_are_not_held() {
        // :authority %2Fs, then indexed `:method GET` up to the size.
        let head = literal(1, b"%2Fs");
        for (len, fixed) in [(MAX_HELD, true), (MAX_HELD + 1, false)] {
            let mut block = head.clone();
            block.resize(len, 0x82);
            let stream = headers_stream(&block);
            let got = through_fix(&stream).await;
            assert_eq!(got.len(), stream.len());
            let at = PREFACE.len() + 9 + 2;
            let want: &[u8] = if fixed { b"loca" } else { b"%2Fs" };
            assert_eq!(&got[at..at + 4], want, "a {len}-byte frame");
        }
        assert_eq!(MAX_HELD, 16_384, "h2's default SETTINGS_MAX_FRAME_SIZE");
    }

    #[tokio::test]
    async fn a_read_with_no_room_is_not_the_end() {
        use std::future::poll_fn;
        let stream = headers_stream(&literal(1, b"%2Fs"));
        let (mut client, server) = tokio::io::duplex(1 << 16);
        tokio::io::AsyncWriteExt::write_all(&mut client, &stream)
            .await
            .unwrap();
        drop(client);
        let mut fixed = AuthorityFix::new(server);
        let mut empty = [0u8; 0];
        let mut rb = ReadBuf::new(&mut empty);
        poll_fn(|cx| Pin::new(&mut fixed).poll_read(cx, &mut rb))
            .await
            .unwrap();
        assert!(!fixed.eof && fixed.raw.is_empty() && fixed.out.is_empty());
        let mut got = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut fixed, &mut got)
            .await
            .unwrap();
        assert_eq!(got.len(), stream.len(), "every byte after the empty read");
        assert_eq!(&got[got.len() - 4..], b"loca");
    }
}
