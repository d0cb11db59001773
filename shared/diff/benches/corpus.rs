//! Corpus benchmark (filled in below).
fn main() {}
