//! The page's files, embedded in the binary and served by exact name: no
//! path from a request ever reaches the file system.

/// Each served path, its content type and its text.
const FILES: &[(&str, &str, &str)] = &[(
    "/",
    "text/html; charset=utf-8",
    include_str!("page/index.html"),
)];

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
