//! TLS for every HTTPS connection Arbor makes (model APIs, MCP servers): rustls,
//! with ring's cryptography, verifying certificates against the system's CA roots
//! as the platform verifier does. The roots are read once per process, at the
//! first handshake: a run against a local model server over plain HTTP never reads
//! them (OpenSSL, through native-tls, read the bundle twice whenever a client was
//! built, ~75 ms of `arbor run`'s start; the platform verifier reads it when made).

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::sync::{Arc, LazyLock, OnceLock};

/// The process's verifier: the roots it loads serve every client.
static SYSTEM_ROOTS: LazyLock<Arc<SystemRoots>> =
    LazyLock::new(|| Arc::new(SystemRoots { provider: provider(), verifier: OnceLock::new() }));

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The TLS settings every HTTP client gets.
pub(crate) fn client_config() -> Result<rustls::ClientConfig, rustls::Error> {
    let roots = SYSTEM_ROOTS.clone();
    let mut config = rustls::ClientConfig::builder_with_provider(roots.provider.clone())
        .with_safe_default_protocol_versions()?
        // Not a weaker check: the platform verifier's own, made when first needed.
        .dangerous()
        .with_custom_certificate_verifier(roots)
        .with_no_client_auth();
    // What reqwest would offer itself (it adds nothing to a config it is given): HTTP/1.1.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// Whether the system's roots have been read (a handshake has happened).
#[cfg(test)]
pub(crate) fn roots_loaded() -> bool {
    SYSTEM_ROOTS.verifier.get().is_some()
}

/// The platform verifier, made at the first certificate to check.
#[derive(Debug)]
struct SystemRoots {
    provider: Arc<CryptoProvider>,
    verifier: OnceLock<Result<rustls_platform_verifier::Verifier, rustls::Error>>,
}

impl SystemRoots {
    fn verifier(&self) -> Result<&rustls_platform_verifier::Verifier, rustls::Error> {
        self.verifier
            .get_or_init(|| rustls_platform_verifier::Verifier::new(self.provider.clone()))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ServerCertVerifier for SystemRoots {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use rustls::pki_types::pem::PemObject;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// One test, in order: the roots are the process's (nextest runs each test in a process of its own).
    #[tokio::test]
    async fn plain_http_never_reads_the_roots_and_the_first_certificate_does() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut sock, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 1024];
            let _ = sock.read(&mut buf).await;
            let _ = sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok").await;
        });
        let client = super::super::http::client(&super::super::Timeouts::default()).unwrap();
        let body = client.get(format!("http://{addr}/")).send().await.unwrap().text().await.unwrap();
        assert_eq!(body, "ok");
        assert!(!roots_loaded(), "a plain HTTP request read the CA roots");

        // A certificate no system CA signed: refused, once the roots are read.
        let pem = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/tls/cert.pem");
        let cert = CertificateDer::from_pem_file(&pem).unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        let verdict = SYSTEM_ROOTS.verify_server_cert(&cert, &[], &name, &[], UnixTime::now());
        assert!(matches!(verdict, Err(rustls::Error::InvalidCertificate(_))), "{verdict:?}");
        assert!(roots_loaded());
    }
}
