use ehir_interp::*;
#[test]
fn scratch() {
    let path = std::env::var("CIR").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let m = ehir_reader::parse_module(&path, &text).unwrap_or_else(|d| panic!("{d:?}"));
    let mut cfg = RunConfig::default();
    if let Ok(t) = std::env::var("THROW") { for s in t.split(';') { cfg.throw_at.push(parse_throw_spec(s).unwrap()); } }
    if let Ok(t) = std::env::var("RET") { for s in t.split(';') { cfg.returns.push(parse_return_spec(s).unwrap()); } }
    cfg.entry = std::env::var("ENTRY").ok();
    let o = run_module(&m, &cfg).unwrap();
    for e in &o.trace { println!("{e}"); }
    println!("stdout: {:?}", String::from_utf8_lossy(&o.stdout));
    println!("stderr: {:?}", String::from_utf8_lossy(&o.stderr));
    println!("status: {} err: {:?}", o.exit_status, o.runtime_error);
}
