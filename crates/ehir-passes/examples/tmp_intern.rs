fn main() {
    let (text, _) = ehir_testgen::eh_workload(200);
    let mut module = ehir_reader::parse_module("w", &text).unwrap();
    let pm = ehir_passes::PassManager::from_pipeline(
        "lowering-prepare,flatten-cfg,eh-abi-lowering=itanium",
    )
    .unwrap();
    let mut last = (0, 0, 0, 0);
    let mut n = 0;
    let produce = |_: &ehir_core::ModuleCtx, _: &ehir_core::Function| ();
    pm.run_function_by_function::<(), ()>(&mut module, &produce, &mut |m, id, ()| {
        let size = (
            m.ctx.symbols.len(),
            m.ctx.types.len(),
            m.ctx.attrs.len(),
            m.functions.len(),
        );
        if size != last && n < 40 {
            println!("{id}: {:?} -> {:?}", last, size);
            n += 1;
        }
        last = size;
        Ok(())
    })
    .unwrap();
}
