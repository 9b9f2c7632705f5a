use graphgen::gen::generate;
use graphgen::inputs::make_inputs;
use graphgen::interp::run;
fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let (seed, start, count) = (args[0], args[1], args[2]);
    let mut n_einsum = 0;
    let mut forms = std::collections::HashMap::new();
    for i in start..start + count {
        let g = generate(seed, i);
        let src = graphgen::render::graph(&g);
        if src.contains("einsum") { n_einsum += 1; }
        *forms.entry(format!("{:?}", g.form)).or_insert(0) += 1;
        for case in 0..4 {
            let (inputs, sizes) = make_inputs(&g, seed, i, case);
            let it: Vec<_> = inputs.iter().map(|t| t.to_interp()).collect();
            let r = std::panic::catch_unwind(|| run(&g, &it, &sizes));
            if r.is_err() { println!("PANIC graph {i} case {case}\n{src}"); break; }
        }
    }
    println!("einsum graphs {n_einsum}, forms {forms:?}");
}
