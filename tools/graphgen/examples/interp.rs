//! `cargo run -p graphgen --example interp -- SEED INDEX CASE`: a graph, its inputs and
//! what the interpreter expects, for reproducing a soak failure by hand.

fn main() {
    let a: Vec<u64> = std::env::args()
        .skip(1)
        .map(|s| match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).unwrap(),
            None => s.parse().unwrap(),
        })
        .collect();
    let (seed, index, case) = (a[0], a[1], a[2]);
    let g = graphgen::gen::generate(seed, index);
    println!("{}", graphgen::render::graph(&g));
    let (inputs, sizes) = graphgen::inputs::make_inputs(&g, seed, index, case);
    let t: Vec<_> = inputs.iter().map(|h| h.to_interp()).collect();
    for (p, x) in g.params.iter().zip(&t) {
        println!("{} = {:?} {:?}", p.name, x.dims, x.data);
    }
    match graphgen::interp::run(&g, &t, &sizes) {
        Ok(outs) => {
            for (k, o) in outs.iter().enumerate() {
                println!("output {k}: {} {:?} {:?}", o.dtype, o.dims, o.data);
            }
        }
        Err(e) => println!("{e:?}"),
    }
}
