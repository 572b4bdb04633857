//! The Docker image (`Dockerfile`) runs the binary on `debian:bookworm-slim`, which holds no
//! libpq, OpenSSL, Kerberos, LDAP or GnuTLS: the binary must need nothing beyond the C library
//! and libgcc. No Docker engine runs here, so these check it without one:
//! - `ldd` on the binary `cargo test` built (linked as the release binary is: same
//!   dependencies, same features), against what the slim image holds;
//! - where `tests/run` made a Debian bookworm `minbase` root (`debootstrap`, cached under the
//!   target folder, its path in `LOUNGE_IMAGE_ROOT`), the binary copied into it and run there
//!   by `chroot`: `--version`, then `serve` on PostgreSQL (the bundled libpq connecting and
//!   migrating) until it says it is open.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::TestDb;

/// The shared libraries `debian:bookworm-slim` holds that a Rust binary may need: those of
/// Debian's `libc6` (2.36) and `libgcc-s1` (12.2) packages, both `Priority: required` and so in
/// every bookworm image, slim included (`dpkg -L libc6 libgcc-s1` in the image), plus the vDSO,
/// which the kernel maps into every process.
const IN_BOOKWORM_SLIM: &[&str] = &[
    "linux-vdso.so.1",
    "ld-linux-x86-64.so.2",
    "libc.so.6",
    "libm.so.6",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "libresolv.so.2",
    "libutil.so.1",
    "libgcc_s.so.1",
];

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_lounge"))
}

/// The libraries `ldd` says the binary needs, by file name.
fn needed(binary: &Path) -> BTreeSet<String> {
    let out = Command::new("ldd")
        .arg(binary)
        .output()
        .expect("ldd runs (Debian's libc-bin)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ldd {}: {text}", binary.display());
    assert!(!text.contains("not found"), "missing libraries:\n{text}");
    text.lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(|name| name.rsplit('/').next().unwrap_or(name).to_owned())
        .collect()
}

#[test]
fn the_binary_needs_no_shared_library_that_bookworm_slim_lacks() {
    let needed = needed(binary());
    let foreign: Vec<&String> = needed
        .iter()
        .filter(|lib| !IN_BOOKWORM_SLIM.contains(&lib.as_str()))
        .collect();
    assert!(
        foreign.is_empty(),
        "{} needs {foreign:?}, which debian:bookworm-slim does not hold \
         (libpq and OpenSSL are built in: pq-sys `bundled`, openssl-sys `vendored`)",
        binary().display()
    );
    assert!(needed.contains("libc.so.6"), "{needed:?}");
}

/// The bookworm root `tests/run` made, if any (`LOUNGE_IMAGE_ROOT`).
fn image_root() -> Option<PathBuf> {
    let root = PathBuf::from(std::env::var_os("LOUNGE_IMAGE_ROOT")?);
    assert!(
        root.join("etc/debian_version").is_file(),
        "LOUNGE_IMAGE_ROOT={} is no Debian root",
        root.display()
    );
    Some(root)
}

#[test]
fn the_binary_starts_and_serves_on_postgres_in_a_bare_bookworm_root() {
    let Some(root) = image_root() else {
        eprintln!("skipped: no LOUNGE_IMAGE_ROOT (tests/run makes one with debootstrap)");
        return;
    };
    std::fs::copy(binary(), root.join("lounge")).unwrap();

    let out = Command::new("chroot")
        .arg(&root)
        .args(["/lounge", "--version"])
        .output()
        .expect("chroot runs (as root)");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(said.starts_with("lounge "), "{said}");

    // The chroot shares this machine's network: PostgreSQL on 127.0.0.1 answers there too.
    let db = TestDb::postgres();
    let mut child = Command::new("chroot")
        .arg(&root)
        .args(["/lounge", "serve", "--bind", "127.0.0.1:0"])
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .env("DATABASE_URL", db.url_string())
        // PostgreSQL means several instances may share it: they must be given one secret.
        .env("LOUNGE_AUTH__SECRET", crate::helpers::app::TEST_SECRET)
        .env("LOUNGE_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chroot runs");
    let mut log = Vec::new();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let open = lines.map_while(Result::ok).any(|line| {
        log.push(line.clone());
        line.contains("the lounge is open")
    });
    child.kill().ok();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).ok();
    assert!(
        open,
        "lounge serve in {} never opened ({status}):\n{}\n{stderr}",
        root.display(),
        log.join("\n")
    );
}
