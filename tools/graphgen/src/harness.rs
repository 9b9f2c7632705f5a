//! The Rust source of a batch: each generated graph in its own module with a `run`
//! function that takes and returns bit-level host tensors (inputs.rs), and the table
//! `BATCH` of them. tensorgraph-tests' build script writes it; tests/graphgen.rs
//! includes it.

use crate::ast::Graph;
use crate::gen::generate;
use crate::render;
use crate::types::Dim;

fn shape_macro(dims: &[Dim]) -> String {
    let d: Vec<String> = dims
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => n.to_string(),
            Dim::Name(_) => "_".into(),
        })
        .collect();
    format!("Shape![{}]", d.join(", "))
}

/// The module of one graph.
pub fn graph_module(g: &Graph) -> String {
    let mut s = format!(
        "#[allow(deprecated, unused_parens, unused_variables, clippy::all)]\nmod {name} {{\n    use tensorgraph::prelude::*;\n    use graphgen::inputs::HostTensor;\n    tensorgraph::graph! {{\n{src}    }}\n    pub fn run(inp: &[HostTensor]) -> Result<Vec<HostTensor>, String> {{\n",
        name = g.name,
        src = render::graph(g)
    );
    let mut args = Vec::new();
    for (i, p) in g.params.iter().enumerate() {
        let t = p.dtype.name();
        let t = match t {
            "f16" | "bf16" => format!("tensorgraph::{t}"),
            t => t.to_string(),
        };
        s += &format!("        let a{i}: Vec<{t}> = inp[{i}].to_vec();\n");
        match &p.dims {
            None => args.push(format!("a{i}[0]")),
            Some(dims) => {
                s += &format!(
                    "        let v{i} = TensorView::<{t}, {}>::with_dims(inp[{i}].dims.clone().try_into().unwrap(), &a{i}).map_err(|e| e.to_string())?;\n",
                    shape_macro(dims)
                );
                args.push(format!("&v{i}"));
            }
        }
    }
    let call = format!("{}({})", g.name, args.join(", "));
    let call = if g.is_symbolic() {
        format!("{call}.map_err(|e| e.to_string())?")
    } else {
        call
    };
    s += &format!("        let out = {call};\n");
    if g.outputs.len() == 1 {
        s += "        Ok(vec![HostTensor::from_slice(out.shape(), out.as_slice())])\n";
    } else {
        let outs: Vec<String> = (0..g.outputs.len())
            .map(|k| format!("HostTensor::from_slice(out.{k}.shape(), out.{k}.as_slice())"))
            .collect();
        s += &format!("        Ok(vec![{}])\n", outs.join(", "));
    }
    s += "    }\n}\n";
    s
}

/// The batch of graphs `start..start + count` of `seed`.
pub fn batch_source(seed: u64, start: u64, count: u64) -> String {
    let mut s =
        format!("/// The seed the batch was generated from.\npub const SEED: u64 = {seed:#x};\n\n");
    let mut table = Vec::new();
    for i in start..start + count {
        let g = generate(seed, i);
        s += &graph_module(&g);
        table.push(format!("({i}, {}::run)", g.name));
    }
    s += &format!(
        "/// (index, runner) of every graph.\npub const BATCH: &[(u64, fn(&[graphgen::inputs::HostTensor]) -> Result<Vec<graphgen::inputs::HostTensor>, String>)] = &[\n    {}\n];\n",
        table.join(",\n    ")
    );
    s
}
