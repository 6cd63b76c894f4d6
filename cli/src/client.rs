//! Connecting a gRPC client to a daemon: over a Unix socket (`unix:PATH`) or
//! TCP (`HOST:PORT`, optionally TLS with a given CA), with the token sent as
//! `authorization: Bearer T`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use gldbg_proto::pb::debugger_client::DebuggerClient;
use hyper_util::rt::TokioIo;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Uri};

/// The client type used everywhere in the CLI.
pub type Client = DebuggerClient<InterceptedService<Channel, Auth>>;

/// Replies (dumps of large framebuffers) may be far above tonic's 4 MiB default.
const MAX_MESSAGE: usize = 1 << 30;

/// Adds `authorization: Bearer T` to every request when a token is set.
#[derive(Clone)]
pub struct Auth(Option<MetadataValue<Ascii>>);

impl Auth {
    pub fn new(token: Option<&str>) -> Result<Auth> {
        let value = match token {
            Some(t) => Some(
                format!("Bearer {t}")
                    .parse::<MetadataValue<Ascii>>()
                    .context("the token must be printable ASCII")?,
            ),
            None => None,
        };
        Ok(Auth(value))
    }
}

impl Interceptor for Auth {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(v) = &self.0 {
            request.metadata_mut().insert("authorization", v.clone());
        }
        Ok(request)
    }
}

/// Where a daemon listens, as given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Unix(PathBuf),
    Tcp(String),
}

impl Target {
    /// `unix:PATH` or `HOST:PORT` (also `http://HOST:PORT`).
    pub fn parse(addr: &str) -> Result<Target> {
        if let Some(path) = addr.strip_prefix("unix:") {
            if path.is_empty() {
                bail!("`{addr}`: expected unix:PATH");
            }
            return Ok(Target::Unix(PathBuf::from(path)));
        }
        let hostport = addr.strip_prefix("http://").unwrap_or(addr);
        match hostport.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => {
                Ok(Target::Tcp(hostport.to_string()))
            }
            _ => bail!("`{addr}`: expected unix:PATH or HOST:PORT"),
        }
    }
}

async fn unix_channel(path: &Path) -> Result<Channel> {
    let path = path.to_path_buf();
    // The URI is required by tonic but never used: the connector decides.
    Endpoint::try_from("http://[::1]:50051")?
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let path = path.clone();
            async move {
                let stream = tokio::net::UnixStream::connect(path).await?;
                Ok::<_, std::io::Error>(TokioIo::new(stream))
            }
        }))
        .await
        .map_err(root_cause)
}

/// TLS to a daemon: the CA to trust and, if not the address's host, the
/// name its certificate carries.
#[derive(Debug, Clone)]
pub struct Tls {
    ca_pem: Vec<u8>,
    domain: Option<String>,
}

/// `--tls-ca FILE [--tls-domain NAME]`, read now (a missing file is an error before connecting).
pub fn tls_options(ca: Option<&Path>, domain: Option<&str>) -> Result<Option<Tls>> {
    let Some(ca) = ca else { return Ok(None) };
    let ca_pem = std::fs::read(ca).with_context(|| format!("cannot read {}", ca.display()))?;
    Ok(Some(Tls {
        ca_pem,
        domain: domain.map(str::to_string),
    }))
}

async fn tcp_channel(hostport: &str, tls: Option<&Tls>) -> Result<Channel> {
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut endpoint = Endpoint::from_shared(format!("{scheme}://{hostport}"))?
        .connect_timeout(Duration::from_secs(10));
    if let Some(tls) = tls {
        let mut config =
            ClientTlsConfig::new().ca_certificate(Certificate::from_pem(tls.ca_pem.clone()));
        if let Some(domain) = &tls.domain {
            config = config.domain_name(domain.clone());
        }
        endpoint = endpoint.tls_config(config).map_err(root_cause)?;
    }
    endpoint.connect().await.map_err(root_cause)
}

/// Transport errors repeat their source in their own text: keep only the innermost.
fn root_cause(e: tonic::transport::Error) -> anyhow::Error {
    let mut inner: &dyn std::error::Error = &e;
    while let Some(next) = inner.source() {
        inner = next;
    }
    anyhow::anyhow!("{inner}")
}

/// Connect to a daemon.
pub async fn connect(target: &Target, token: Option<&str>, tls: Option<&Tls>) -> Result<Client> {
    let channel = match target {
        Target::Unix(_) if tls.is_some() => {
            bail!("--tls-ca is for HOST:PORT (a Unix socket is private to its user)")
        }
        Target::Unix(path) => unix_channel(path)
            .await
            .with_context(|| format!("cannot connect to unix:{}", path.display()))?,
        Target::Tcp(hostport) => tcp_channel(hostport, tls)
            .await
            .with_context(|| format!("cannot connect to {hostport}"))?,
    };
    Ok(DebuggerClient::with_interceptor(channel, Auth::new(token)?)
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        assert_eq!(
            Target::parse("unix:/tmp/s").unwrap(),
            Target::Unix("/tmp/s".into())
        );
        assert_eq!(
            Target::parse("127.0.0.1:4000").unwrap(),
            Target::Tcp("127.0.0.1:4000".into())
        );
        assert_eq!(
            Target::parse("localhost:4000").unwrap(),
            Target::Tcp("localhost:4000".into())
        );
        assert_eq!(
            Target::parse("[::1]:4000").unwrap(),
            Target::Tcp("[::1]:4000".into())
        );
        assert!(Target::parse("unix:").is_err());
        assert!(Target::parse("localhost").is_err());
        assert!(Target::parse("host:port").is_err());
    }

    #[test]
    fn auth_header() {
        let mut auth = Auth::new(Some("s3cret")).unwrap();
        let req = auth.call(tonic::Request::new(())).unwrap();
        assert_eq!(
            req.metadata().get("authorization").unwrap(),
            "Bearer s3cret"
        );
        let mut none = Auth::new(None).unwrap();
        assert!(
            none.call(tonic::Request::new(()))
                .unwrap()
                .metadata()
                .get("authorization")
                .is_none()
        );
    }
}
