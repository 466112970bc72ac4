//! The pipeline from a module to artefacts: invalid input is named as such, both ABIs
//! take the same path to LLVM IR, and a module builds into an executable that runs.

use ehir_core::Phase;
use ehir_pipeline::{
    BuildOptions, EhAbi, LlvmUnit, PipelineError, Product, build, build_module, llvm_ir,
};

/// `main` throws 42 through a cleanup into a catch and returns what it caught.
const THROW_AND_CATCH: &str = r#"
cir.func @note()
cir.func @thrower(%v: !s32i) {
  %x = cir.alloc.exception 4 -> !cir.ptr<!s32i>
  cir.store %v, %x : !s32i, !cir.ptr<!s32i>
  cir.throw %x : !cir.ptr<!s32i>, @_ZTIi
}
cir.func @main() -> !s32i {
  %slot = cir.alloca !s32i, !cir.ptr<!s32i>, ["caught"]
  cir.try {
    cir.cleanup.scope {
      %v = cir.const #cir.int<42> : !s32i
      cir.call @thrower(%v) : (!s32i) -> ()
      cir.yield
    } cleanup eh {
      cir.call @note() : () -> ()
      cir.yield
    }
    cir.yield
  } catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {
    %e = cir.catch_param : !cir.ptr<!s32i>
    %ev = cir.load %e : !cir.ptr<!s32i>, !s32i
    cir.store %ev, %slot : !s32i, !cir.ptr<!s32i>
    cir.yield
  }
  %r = cir.load %slot : !cir.ptr<!s32i>, !s32i
  cir.return %r : !s32i
}
cir.func @note() {
  cir.return
}
"#;

fn parse(text: &str) -> ehir_core::Module {
    ehir_reader::parse_module("t.cir", text).expect("parses")
}

#[test]
fn invalid_input_is_reported_as_such_for_both_abis() {
    for abi in [EhAbi::Itanium, EhAbi::Msvc] {
        let mut module = parse("cir.func @main() -> !s32i {\n  cir.return\n}\n");
        let err = llvm_ir(&mut module, abi, "t.cir").unwrap_err();
        assert!(matches!(err, PipelineError::Lower(_)), "{err:?}");
        assert!(
            err.to_string().starts_with("input does not verify: "),
            "{err}"
        );
        assert_eq!(err.pass(), None);
        assert!(
            err.diagnostics().0[0]
                .message
                .starts_with("input does not verify: @main returns !s32i")
        );
    }
}

#[test]
fn both_abis_lower_and_emit_through_one_call() {
    let mut itanium = parse(THROW_AND_CATCH);
    let ll = llvm_ir(&mut itanium, EhAbi::Itanium, "t.cir").expect("itanium");
    assert!(ll.contains("landingpad"), "{ll}");
    assert!(ll.contains("@__gxx_personality_v0"), "{ll}");
    let mut msvc = parse(THROW_AND_CATCH);
    let ll = llvm_ir(&mut msvc, EhAbi::Msvc, "t.cir").expect("msvc");
    assert!(ll.contains("catchswitch"), "{ll}");
    assert!(ll.contains("cleanuppad"), "{ll}");
    assert!(ll.contains("x86_64-pc-windows-msvc"), "{ll}");
    for (module, phase) in [(&itanium, Phase::Itanium), (&msvc, Phase::Msvc)] {
        assert!(
            module
                .functions
                .values()
                .filter(|f| !f.is_declaration())
                .all(|f| f.phase == phase)
        );
    }
}

#[test]
fn a_module_already_in_the_other_abi_is_refused_by_the_lowering() {
    let mut module = parse(THROW_AND_CATCH);
    llvm_ir(&mut module, EhAbi::Msvc, "t.cir").expect("msvc");
    let err = llvm_ir(&mut module, EhAbi::Itanium, "t.cir").unwrap_err();
    assert!(
        err.to_string()
            .contains("which cannot be lowered to itanium"),
        "{err}"
    );
}

#[test]
fn build_checks_its_units_before_looking_for_tools() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let none = build(&[], &BuildOptions::new(EhAbi::Itanium), &out).unwrap_err();
    assert!(matches!(none, PipelineError::NoUnits), "{none}");
    let unit = LlvmUnit {
        name: "a".into(),
        llvm_ir: String::new(),
    };
    let mut options = BuildOptions::new(EhAbi::Itanium);
    options.product = Product::Object;
    let two = build(&[unit.clone(), unit.clone()], &options, &out).unwrap_err();
    assert!(
        matches!(two, PipelineError::SeveralUnitsForObject(2)),
        "{two}"
    );
    let mut options = BuildOptions::new(EhAbi::Msvc);
    options.link_inputs.push("gxx.o".into());
    let foreign = build(&[unit], &options, &out).unwrap_err();
    assert!(
        foreign
            .to_string()
            .contains("'gxx.o' cannot be linked for the msvc EH ABI"),
        "{foreign}"
    );
    assert!(!out.exists());
}

/// The whole way natively (needs `llc` and `g++`, as the CLI's end-to-end tests do).
#[test]
fn a_module_builds_into_an_executable_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("throw-and-catch");
    let mut module = parse(THROW_AND_CATCH);
    build_module(
        &mut module,
        "throw-and-catch.cir",
        &BuildOptions::new(EhAbi::Itanium),
        &exe,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let status = std::process::Command::new(&exe).status().expect("runs");
    assert_eq!(status.code(), Some(42));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, [std::ffi::OsString::from("throw-and-catch")]);
}
