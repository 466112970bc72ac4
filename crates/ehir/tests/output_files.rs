//! `-o` with an output that is not a regular file (`/dev/null`, a pipe): the output is
//! written in place. Writing a temporary file and renaming it over the path (what makes a
//! regular output file appear only when complete) would replace the special file itself,
//! e.g. turn `/dev/null` into a regular file. Tested with a FIFO, which shows both the
//! text arriving and the FIFO surviving.

use std::os::unix::fs::FileTypeExt;
use std::process::Command;

const INPUT: &str = "cir.func @f(%arg0: !s32i) -> !s32i {\n  cir.return %arg0 : !s32i\n}\n";

/// `O_NONBLOCK` on Linux (x86, x86-64, ARM, RISC-V).
const O_NONBLOCK: i32 = 0o4000;

#[cfg(target_os = "linux")]
#[test]
fn output_to_a_fifo_is_written_in_place() {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempfile::tempdir().expect("temporary directory");
    let input = dir.path().join("in.cir");
    std::fs::write(&input, INPUT).expect("write input");
    let fifo = dir.path().join("out.fifo");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success(), "mkfifo failed");
    // A read end opened without blocking, so that ehir's open for writing does not wait
    // and nothing hangs if ehir never opens the FIFO.
    let mut read_end = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(&fifo)
        .expect("open the FIFO");
    let out = Command::new(env!("CARGO_BIN_EXE_ehir"))
        .arg("opt")
        .arg(&input)
        .arg("-o")
        .arg(&fifo)
        .output()
        .expect("run ehir");
    assert!(
        out.status.success(),
        "ehir failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The writer is gone: what it wrote is buffered in the FIFO, then end of file.
    let mut text = String::new();
    read_end.read_to_string(&mut text).expect("read the FIFO");
    assert_eq!(text, INPUT, "the printed module came through the FIFO");
    let kind = std::fs::symlink_metadata(&fifo)
        .expect("the FIFO still exists")
        .file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced by {kind:?}");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list directory")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        2,
        "no temporary file is left: {leftovers:?}"
    );
}

#[test]
fn output_to_a_regular_file_replaces_it_whole() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let input = dir.path().join("in.cir");
    std::fs::write(&input, INPUT).expect("write input");
    let output = dir.path().join("out.cir");
    std::fs::write(
        &output,
        "old contents that are longer than the new ones\n".repeat(10),
    )
    .expect("write old output");
    let status = Command::new(env!("CARGO_BIN_EXE_ehir"))
        .arg("opt")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .status()
        .expect("run ehir");
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(&output).expect("read output"),
        INPUT
    );
}

/// An output file gets the mode any newly created file gets (0666 less the umask), not the
/// private mode of the temporary file it was written as.
#[test]
fn output_files_get_the_usual_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temporary directory");
    let input = dir.path().join("in.cir");
    std::fs::write(&input, INPUT).expect("write input");
    let output = dir.path().join("out.cir");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 027 && exec '{}' opt '{}' -o '{}'",
            env!("CARGO_BIN_EXE_ehir"),
            input.display(),
            output.display()
        ))
        .status()
        .expect("run ehir");
    assert!(status.success());
    let mode = std::fs::metadata(&output)
        .expect("output")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640, "mode {mode:o}");
}

/// A module of `functions` small functions (several megabytes of text for 20,000).
fn large_module(functions: usize) -> String {
    (0..functions)
        .map(|i| {
            format!(
                "cir.func @f{i}(%arg0: !s32i) -> !s32i {{\n  %0 = cir.binop(add, %arg0, %arg0) : !s32i\n  cir.return %0 : !s32i\n}}\n"
            )
        })
        .collect()
}

/// The names in `dir` other than `keep`, sorted.
fn other_files(dir: &std::path::Path, keep: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    names.sort();
    names
}

/// `ehir opt -o OUT` killed (SIGKILL, SIGTERM, SIGINT) while it works leaves nothing
/// beside OUT: its temporary file has no name until the output is complete. The test
/// watches the directory and kills ehir the moment any new name appears there (with a
/// named temporary file, that is while the output is being written), or after a delay.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_run_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let input = dir.path().join("in.cir");
    std::fs::write(&input, large_module(40_000)).expect("write input");
    let output = dir.path().join("out.cir");
    for signal in ["KILL", "TERM", "INT"] {
        for delay_ms in [None, Some(30u64)] {
            let _ = std::fs::remove_file(&output);
            let mut child = Command::new(env!("CARGO_BIN_EXE_ehir"))
                .arg("opt")
                .arg(&input)
                .arg("-o")
                .arg(&output)
                .spawn()
                .expect("run ehir");
            match delay_ms {
                Some(ms) => std::thread::sleep(std::time::Duration::from_millis(ms)),
                None => {
                    while other_files(dir.path(), &["in.cir"]).is_empty()
                        && child.try_wait().expect("poll ehir").is_none()
                    {
                        std::thread::yield_now();
                    }
                }
            }
            Command::new("kill")
                .arg(format!("-{signal}"))
                .arg(child.id().to_string())
                .status()
                .expect("run kill");
            child.wait().expect("wait for ehir");
            assert_eq!(
                other_files(dir.path(), &["in.cir", "out.cir"]),
                Vec::<String>::new(),
                "SIG{signal} ({delay_ms:?}) left files behind"
            );
            if let Ok(text) = std::fs::read_to_string(&output) {
                assert!(
                    text.ends_with("}\n") && text.contains("@f39999"),
                    "an output that exists is complete"
                );
            }
        }
    }
}
