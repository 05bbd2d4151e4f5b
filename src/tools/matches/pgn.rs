//! PGN output of `agon match --pgn FILE`: one record per game, written from
//! the game records (so `--merge` can write one too).
//!
//! Ataxx follows python-ataxx's reader: `Black` is the `x` player (who
//! moves first), `White` the `o` player, `1-0` a win for `x`, moves as
//! `g2`/`a1c3`/`0000`, `FEN` and `SetUp` only away from the start position.
//! Every other game follows the generic UGI runner cutegames: `White` is
//! the first player (`x`), `Black` the second, `1-0` a win for `x`, the
//! `FEN` always given, then `Winner`/`Loser`. Both carry `PlyCount` (a CTOR
//! operation or a Dots and Boxes line is one ply) and `Termination`
//! (`normal`, `time forfeit`, `rules infraction`, `adjudication` or
//! `abandoned`), and end with a comment naming the rule or the forfeit.

use super::record::{
    GameRecord, REASON_ADJUDICATION, REASON_REPETITION, REASON_RULES, REASON_SCORE_ADJUDICATION,
    replay_moves,
};
use crate::game::{Game, Outcome, Player};
use crate::games::{GameVisitor, visit_game};

/// The tags and moves of one game's PGN record, ending with a blank line.
/// `date` is written as given (`YYYY.MM.DD`).
pub fn pgn_game(record: &GameRecord, event: &str, date: &str) -> Result<String, String> {
    let (rule, start_fen, movers) = visit_game(&record.game, Replay { record })??;
    let ataxx = record.game == "ataxx";
    let result = match record.outcome {
        Outcome::Win(Player::X) => "1-0",
        Outcome::Win(Player::O) => "0-1",
        Outcome::Draw => "1/2-1/2",
    };
    let [x, o] = [tag_text(&record.players[0]), tag_text(&record.players[1])];
    let mut tags = vec![
        ("Event", tag_text(event)),
        ("Site", "agon match".to_owned()),
        ("Date", date.to_owned()),
        ("Round", record.number.to_string()),
    ];
    if ataxx {
        tags.push(("Black", x.clone()));
        tags.push(("White", o.clone()));
    } else {
        tags.push(("White", x.clone()));
        tags.push(("Black", o.clone()));
    }
    tags.push(("Result", result.to_owned()));
    if !ataxx || !start_fen {
        tags.push(("FEN", tag_text(&record.start)));
    }
    if ataxx && !start_fen {
        tags.push(("SetUp", "1".to_owned()));
    }
    if !ataxx {
        let (winner, loser) = match record.outcome {
            Outcome::Win(Player::X) => (Some(&x), Some(&o)),
            Outcome::Win(Player::O) => (Some(&o), Some(&x)),
            Outcome::Draw => (None, None),
        };
        if let (Some(winner), Some(loser)) = (winner, loser) {
            tags.push(("Winner", winner.clone()));
            tags.push(("Loser", loser.clone()));
        }
    }
    tags.push(("PlyCount", record.moves.len().to_string()));
    tags.push(("Termination", termination(&record.reason).to_owned()));
    let mut text = String::new();
    for (name, value) in tags {
        text.push_str(&format!("[{name} \"{value}\"]\n"));
    }
    text.push('\n');
    text.push_str(&movetext(&record.moves, &movers));
    let why = rule.map_or_else(|| record.reason.clone(), str::to_owned);
    text.push_str(&format!("{{{}}} {result}\n\n", comment_text(&why)));
    Ok(text)
}

/// The standard `Termination` value of a record's reason.
fn termination(reason: &str) -> &'static str {
    if reason == REASON_RULES || reason == REASON_REPETITION {
        "normal"
    } else if reason.starts_with(REASON_ADJUDICATION)
        || reason.starts_with(REASON_SCORE_ADJUDICATION)
    {
        "adjudication"
    } else if reason.contains("loss on time") || reason.contains("timeout") {
        "time forfeit"
    } else if reason.contains("illegal move") {
        "rules infraction"
    } else {
        "abandoned"
    }
}

/// `1. a b 2. c d …`, numbered by turns: a number where `x` starts a
/// turn, `1...` where `o` starts the game; further moves of the same turn
/// (CTOR operations, Dots and Boxes after a box) follow without one. All
/// on one line: python-ataxx reads each further line as a new variation,
/// and the generic runner writes one line too. `movers[i]` is the side
/// that played `moves[i]`.
fn movetext(moves: &[String], movers: &[Player]) -> String {
    let mut words = Vec::with_capacity(moves.len());
    let mut turn = 0;
    for (i, (mv, &mover)) in moves.iter().zip(movers).enumerate() {
        let starts_turn = i == 0 || movers[i - 1] != mover;
        if starts_turn && mover == Player::X {
            turn += 1;
            words.push(format!("{turn}. {mv}"));
        } else if i == 0 {
            turn = 1;
            words.push(format!("1... {mv}"));
        } else {
            words.push(mv.clone());
        }
    }
    let mut text = words.join(" ");
    if !text.is_empty() {
        text.push(' ');
    }
    text
}

/// A tag value without the characters that would end it.
fn tag_text(text: &str) -> String {
    text.replace(['"', '\\'], "'").replace(['\n', '\r'], " ")
}

/// A comment without braces.
fn comment_text(text: &str) -> String {
    text.replace(['{', '}'], "").replace(['\n', '\r'], " ")
}

/// Replays a record: the rule that ended it (if the rules did), whether it
/// started from the game's start position, and who played each move.
struct Replay<'a> {
    record: &'a GameRecord,
}

impl GameVisitor for Replay<'_> {
    type Output = Result<(Option<&'static str>, bool, Vec<Player>), String>;
    fn visit<G: Game>(self) -> Self::Output {
        let replayed = replay_moves::<G>(self.record)
            .map_err(|e| format!("game {}: {e}", self.record.number))?;
        Ok((
            replayed.state.end_reason(),
            replayed.from_start,
            replayed.movers,
        ))
    }
}

/// Today's date as PGN writes it (`YYYY.MM.DD`, UTC).
pub fn today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((seconds / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Year, month and day of a day count since 1970-01-01 (Howard Hinnant's
/// algorithm for the proleptic Gregorian calendar).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_day_numbers() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_788), (2026, 12, 1));
    }

    #[test]
    fn an_ataxx_game_in_python_ataxx_form() {
        let record = GameRecord {
            number: 3,
            game: "ataxx".into(),
            options: vec![("Rules".into(), "standard".into())],
            players: ["first \"x\"".into(), "second".into()],
            start: "x5o/7/7/7/7/7/o5x x 0 1".into(),
            moves: vec!["b6".into(), "f6".into(), "a7c5".into()],
            outcome: Outcome::Draw,
            reason: "adjudication: ply limit".into(),
            clocks: None,
        };
        let text = pgn_game(&record, "test", "2026.12.01").expect("writes");
        assert!(text.contains("[Round \"3\"]\n[Black \"first 'x'\"]\n[White \"second\"]\n"));
        assert!(!text.contains("[FEN"), "start position: no FEN");
        assert!(text.contains("[PlyCount \"3\"]\n[Termination \"adjudication\"]\n\n"));
        assert!(text.ends_with("1. b6 f6 2. a7c5 {adjudication: ply limit} 1/2-1/2\n\n"));
    }

    #[test]
    fn other_games_in_the_generic_runner_form() {
        let record = GameRecord {
            number: 1,
            game: "nim".into(),
            options: Vec::new(),
            players: ["a".into(), "b".into()],
            start: "1/1 x".into(),
            moves: vec!["1:1".into(), "2:1".into()],
            outcome: Outcome::Win(Player::O),
            reason: "rules".into(),
            clocks: None,
        };
        let text = pgn_game(&record, "test", "2026.12.01").expect("writes");
        assert!(text.contains("[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n[FEN \"1/1 x\"]\n"));
        assert!(text.contains("[Winner \"b\"]\n[Loser \"a\"]\n[PlyCount \"2\"]\n"));
        assert!(text.contains("[Termination \"normal\"]"));
        assert!(text.ends_with("1. 1:1 2:1 {last object taken} 0-1\n\n"));
        let mut bad = record.clone();
        bad.moves.push("1:1".into());
        assert!(pgn_game(&bad, "test", "2026.12.01").is_err());
    }

    #[test]
    fn moves_are_numbered_by_turns() {
        let words = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (x, o) = (Player::X, Player::O);
        // A CTOR-like turn of three operations, then o's two.
        let text = movetext(
            &words(&["1", "2", "end", "9", "end", "3"]),
            &[x, x, x, o, o, x],
        );
        assert_eq!(text, "1. 1 2 end 9 end 2. 3 ");
        let text = movetext(&words(&["a", "b", "c"]), &[o, x, o]);
        assert_eq!(text, "1... a 2. b c ");
    }
}
