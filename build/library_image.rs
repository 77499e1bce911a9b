//! What the two build scripts (`lang/build.rs`, `runtime/build.rs`) do
//! alike: write the standard library's image into `OUT_DIR` and set
//! `cfg(writ_library_image)` for the crate (decision 014). Each script
//! includes this file as a module and gives it the image its crate makes.

/// Write `image` (made by the crate's own code, compiled into the
/// script) to `OUT_DIR/file` and tell cargo when to run the script again;
/// stop the build with a message if the image or the file cannot be
/// made.
pub fn write(file: &str, image: Result<Vec<u8>, String>) {
    println!("cargo::rustc-check-cfg=cfg(writ_library_image)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src");
    println!("cargo::rerun-if-changed=../stdlib");
    println!("cargo::rerun-if-changed=../build");
    let Some(out) = std::env::var_os("OUT_DIR") else {
        eprintln!("OUT_DIR is not set: not run by cargo");
        std::process::exit(1);
    };
    let image = match image {
        Ok(image) => image,
        Err(e) => {
            eprintln!("the standard library's image ({file}) could not be made: {e}");
            std::process::exit(1);
        }
    };
    let path = std::path::Path::new(&out).join(file);
    if let Err(e) = std::fs::write(&path, image) {
        eprintln!("{}: {e}", path.display());
        std::process::exit(1);
    }
    println!("cargo::rustc-cfg=writ_library_image");
}
