// The viewer's files (the arena's pages among them) are embedded with `include_dir!`, which
// cargo does not track: rebuild whenever one of them changes.
fn main() {
    println!("cargo:rerun-if-changed=../../viewer");
}
