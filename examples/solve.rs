//! Times `agon solve` before the CLI wires it: `solve <game> [fen|-] [size]`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let game = args.get(1).map_or("dots", String::as_str);
    let fen = args
        .get(2)
        .filter(|f| f.as_str() != "-")
        .map(String::as_str);
    let options: Vec<(String, String)> = args
        .get(3)
        .map(|s| vec![("Size".to_string(), s.clone())])
        .unwrap_or_default();
    let mut out = std::io::stdout();
    if let Err(e) = agon::tools::solve::run(game, fen, &options, true, &mut out) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
