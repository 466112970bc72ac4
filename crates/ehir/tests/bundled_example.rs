//! The README's first command runs `examples/eh-tour.cir`, the CIR that the C++ front end
//! generates for `examples/eh-tour.cpp`: the bundled file must stay what the front end
//! generates (comment lines aside), and must run the same at every phase of its target
//! (x86-64 Linux, the Itanium ABI).

mod common;

use std::process::Command;

fn without_comment_lines(text: &str) -> String {
    text.lines()
        .filter(|line| !line.starts_with("//"))
        .map(|line| format!("{line}\n"))
        .collect()
}

#[test]
fn bundled_cir_is_what_the_front_end_generates() {
    let root = common::root();
    let bundled = std::fs::read_to_string(root.join("examples/eh-tour.cir"))
        .expect("examples/eh-tour.cir is bundled");
    let output = Command::new(common::ehir())
        .current_dir(&root)
        .args(["opt", "examples/eh-tour.cpp"])
        .output()
        .expect("ehir runs");
    assert!(
        output.status.success(),
        "the C++ front end failed on examples/eh-tour.cpp (is clang-22 installed?): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        without_comment_lines(&bundled),
        String::from_utf8(output.stdout).expect("UTF-8 CIR"),
        "examples/eh-tour.cir is stale: regenerate it with `ehir opt examples/eh-tour.cpp`"
    );
}

#[test]
fn bundled_cir_runs_alike_at_every_phase_and_like_the_cpp() {
    let root = common::root();
    let run = |input: &str| {
        Command::new(common::ehir())
            .current_dir(&root)
            .args(["run", "--phase", "all", input])
            .output()
            .expect("ehir runs")
    };
    let cir = run("examples/eh-tour.cir");
    assert_eq!(
        cir.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&cir.stderr)
    );
    assert!(
        String::from_utf8_lossy(&cir.stderr).contains("phases structured, flat, itanium agree"),
        "{}",
        String::from_utf8_lossy(&cir.stderr)
    );
    let cpp = run("examples/eh-tour.cpp");
    assert_eq!(cir.stdout, cpp.stdout);
    assert!(String::from_utf8_lossy(&cir.stdout).contains("release lock"));
}
