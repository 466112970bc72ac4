//! SCRATCH (not to be committed): builds a .cpp with runtime declarations pre-added.
use ehir_core::{Function, Phase};
use std::path::PathBuf;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let extra: Vec<String> = std::env::args().skip(2).collect();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut m = match ehir_cxx::compile(&path, &text) {
        Ok(m) => m,
        Err(ds) => { eprint!("{}", ehir_core::SourceFile::new(&path, &text).render_all(&ds)); std::process::exit(1) }
    };
    let vp = m.ctx.types.common().void_ptr;
    for (n, params, ret) in [("__cxa_begin_catch", vec![vp], Some(vp)), ("__cxa_end_catch", vec![], None), ("__cxa_call_unexpected", vec![vp], None), ("_ZSt9terminatev", vec![], None)] {
        let s = m.ctx.sym(n);
        let sig = m.ctx.types.func(params, ret, false);
        if m.function_by_name(s).is_none() { m.add_function(Function::new_declaration(s, sig)); }
    }
    if let Err(e) = ehir_passes::lower_to(&mut m, Phase::Itanium) { eprintln!("lower: {e}"); if let ehir_passes::PassError::Failed{diagnostics,..} | ehir_passes::PassError::Phase{diagnostics,..} = &e { for d in &diagnostics.0 { eprintln!("  {}", d.message); } } std::process::exit(1) }
    let ll = match ehir_llvm::module_to_llvm_text(&m, &path, &ehir_llvm::EmitOptions::default()) { Ok(t) => t, Err(ds) => { for d in ds.0 { eprintln!("emit: {}", d.message); } std::process::exit(1) } };
    let dir = PathBuf::from("/tmp/gt/build"); std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("x.ll"), &ll).unwrap();
    let tc = ehir_llvm::Toolchain { llc: ehir_llvm::find_tool(ehir_llvm::Tool::Llc, None).unwrap(), opt: None, cxx: "g++".into(), opt_level: 0 };
    if let Err(e) = tc.compile(&dir.join("x.ll"), &dir.join("x.o"), &dir) { eprintln!("{e}"); std::process::exit(1) }
    let mut inputs = vec![dir.join("x.o")];
    inputs.extend(extra.iter().map(PathBuf::from));
    if let Err(e) = tc.link(&inputs, &[], &dir.join("x.exe")) { eprintln!("{e}"); std::process::exit(1) }
    let out = std::process::Command::new(dir.join("x.exe")).output().unwrap();
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprintln!("status {:?}", out.status);
}
