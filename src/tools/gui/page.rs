//! The page's files, embedded in the binary and served by exact name: no
//! path from a request ever reaches the file system.

/// Each served path, its content type and its text.
const FILES: &[(&str, &str, &str)] = &[
    ("/", HTML, include_str!("page/index.html")),
    ("/style.css", CSS, include_str!("page/style.css")),
    ("/main.js", JS, include_str!("page/main.js")),
    ("/i18n.js", JS, include_str!("page/i18n.js")),
    ("/svg.js", JS, include_str!("page/svg.js")),
    ("/ataxx.js", JS, include_str!("page/ataxx.js")),
    ("/dots.js", JS, include_str!("page/dots.js")),
    ("/nim.js", JS, include_str!("page/nim.js")),
    ("/mutorere.js", JS, include_str!("page/mutorere.js")),
    ("/yote.js", JS, include_str!("page/yote.js")),
    ("/ctor.js", JS, include_str!("page/ctor.js")),
];

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
// Module scripts must be served with a JavaScript type.
const JS: &str = "text/javascript; charset=utf-8";

/// The content type and body of the embedded file at `path`, if there is
/// one.
pub fn file(path: &str) -> Option<(&'static str, &'static [u8])> {
    FILES
        .iter()
        .find(|(name, _, _)| *name == path)
        .map(|(_, content_type, text)| (*content_type, text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listed_names_are_served() {
        assert!(file("/").is_some());
        assert!(file("/ctor.js").is_some_and(|(t, _)| t.starts_with("text/javascript")));
        assert!(file("/ctor.js").is_some_and(|(t, _)| t.starts_with("text/javascript")));
        for path in [
            "/../Cargo.toml",
            "/index.html/..",
            "//",
            "/api",
            "/page/index.html",
        ] {
            assert!(file(path).is_none(), "{path}");
        }
    }

    #[test]
    fn the_page_weighs_at_most_300_kb() {
        let total: usize = FILES.iter().map(|(_, _, text)| text.len()).sum();
        assert!(total <= 300 * 1024, "{total} bytes");
    }
}
