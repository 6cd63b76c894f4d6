//! The gRPC codec of the `Debugger` service: prost's, except that a message
//! that does not decode is the sender's fault. tonic's `ProstCodec` answers
//! malformed request bytes with INTERNAL; a client sending garbage gets
//! INVALID_ARGUMENT with prost's reason here.

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, DecodeBuf, Decoder};
use tonic_prost::ProstEncoder;

/// `tonic_prost::ProstCodec` with [`ArgDecoder`] as its decoder (set as the
/// services' `codec_path` in `build.rs`).
#[derive(Debug, Clone)]
pub struct ProtoCodec<T, U> {
    _pd: PhantomData<(T, U)>,
}

impl<T, U> Default for ProtoCodec<T, U> {
    fn default() -> Self {
        ProtoCodec { _pd: PhantomData }
    }
}

impl<T, U> tonic::codec::Codec for ProtoCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ArgDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(BufferSettings::default())
    }

    fn decoder(&mut self) -> Self::Decoder {
        ArgDecoder { _pd: PhantomData }
    }
}

/// Decodes `U`; bytes that are not a `U` are INVALID_ARGUMENT.
#[derive(Debug, Clone)]
pub struct ArgDecoder<U> {
    _pd: PhantomData<U>,
}

impl<U: Message + Default> Decoder for ArgDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf).map(Some).map_err(|e| {
            Status::invalid_argument(format!("the message is not valid protobuf: {e}"))
        })
    }
}
