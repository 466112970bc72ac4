//! Compiles a C++ file and runs its structured CIR in the reference interpreter,
//! printing its stdout, stderr and exit status (a debugging aid for the front end).
//! Usage: `cargo run -p ehir-cxx --example cxxrun -- FILE.cpp`

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: cxxrun FILE.cpp");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let module = match ehir_cxx::compile(&path, &text) {
        Ok(m) => m,
        Err(ds) => {
            let src = ehir_core::SourceFile::new(&path, &text);
            eprint!("{}", src.render_all(&ds));
            std::process::exit(1);
        }
    };
    if let Err(ds) = ehir_core::verifier::verify_module(&module) {
        let src = ehir_core::SourceFile::new(&path, &text);
        eprint!("verifier:\n{}", src.render_all(&ds));
        eprint!("{}", ehir_core::printer::module_to_string(&module));
        std::process::exit(1);
    }
    match ehir_interp::run_module(&module, &ehir_interp::RunConfig::default()) {
        Ok(out) => {
            print!("{}", String::from_utf8_lossy(&out.stdout));
            eprint!("{}", String::from_utf8_lossy(&out.stderr));
            if let Some(e) = &out.runtime_error {
                eprintln!("runtime error: {} in {}", e.message, e.function);
            }
            eprintln!("exit status {}", out.exit_status);
        }
        Err(e) => {
            eprintln!("interp: {e}");
            std::process::exit(1);
        }
    }
}
