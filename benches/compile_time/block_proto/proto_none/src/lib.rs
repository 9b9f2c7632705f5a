//! No kernel: the cost of a crate with these dependencies and nothing in it.
#![allow(unused_imports)]
use tensorgraph::prelude::*;
use blockops as _;
