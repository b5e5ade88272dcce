//! The README's code is real code: its library example is examples/library.rs, which
//! `cargo test` and `cargo clippy --all-targets` build.

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_readme_library_example_is_examples_library_rs_verbatim() {
    let readme = read("README.md");
    let section = &readme[readme.find("## Library").expect("a Library section")..];
    let start = section.find("```rust\n").expect("a rust block in the Library section") + "```rust\n".len();
    let block = &section[start..start + section[start..].find("```\n").expect("the block ends")];
    let example = read("examples/library.rs");
    // The file's own doc comment stays out of the README.
    let code = &example[example.find("\nuse ").expect("the example's code") + 1..];
    assert_eq!(block, code, "README.md's Library block and examples/library.rs differ");
}
