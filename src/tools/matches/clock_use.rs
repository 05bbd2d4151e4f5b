//! How the players of a match on a clock used it: the time each had left
//! at the end of its games, and its losses on time. What time management
//! is judged by (the strongest engines end their games with a few percent
//! of the base left, and never lose on time).

use super::record::GameRecord;
use crate::game::{Outcome, Player};

/// The line `Clock left at the end: A median 4.21 s (min 2.60 s), 0 losses
/// on time; B …`, for the records of a match between `names` (first,
/// second) whose games carry their clocks; `None` when none does.
pub fn clock_line(names: &[String; 2], records: &[GameRecord]) -> Option<String> {
    let mut left: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    let mut flags = [0usize; 2];
    for record in records {
        let Some(clocks) = record.clocks else {
            continue;
        };
        // The first player is `x` in the games where it is named first.
        let first_side = if record.players[0] == names[0] {
            Player::X
        } else {
            Player::O
        };
        for (who, side) in [(0, first_side), (1, first_side.other())] {
            left[who].push(clocks[side.index()]);
            let flagged = record.outcome == Outcome::Win(side.other())
                && record.reason.starts_with("loss on time");
            flags[who] += usize::from(flagged);
        }
    }
    if left[0].is_empty() {
        return None;
    }
    let part = |who: usize| {
        let times = &mut left[who].clone();
        times.sort_unstable();
        let median = times[times.len() / 2];
        let losses = if flags[who] == 1 { "loss" } else { "losses" };
        format!(
            "{} median {} (min {}), {} {losses} on time",
            names[who],
            seconds(median),
            seconds(times[0]),
            flags[who]
        )
    };
    Some(format!("Clock left at the end: {}; {}", part(0), part(1)))
}

fn seconds(ms: u64) -> String {
    format!("{:.2} s", ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(players: [&str; 2], clocks: [u64; 2], outcome: Outcome, reason: &str) -> GameRecord {
        GameRecord {
            number: 1,
            game: "ataxx".into(),
            options: Vec::new(),
            players: players.map(String::from),
            start: "startpos".into(),
            moves: Vec::new(),
            outcome,
            reason: reason.into(),
            clocks: Some(clocks),
        }
    }

    #[test]
    fn medians_minima_and_losses_on_time_follow_the_players_across_colours() {
        let names = ["a".to_owned(), "b".to_owned()];
        let records = [
            record(["a", "b"], [4_000, 900], Outcome::Win(Player::X), "rules"),
            record(
                ["b", "a"],
                [0, 5_000],
                Outcome::Win(Player::O),
                "loss on time, b",
            ),
            record(["a", "b"], [3_000, 700], Outcome::Draw, "rules"),
        ];
        assert_eq!(
            clock_line(&names, &records).as_deref(),
            Some(
                "Clock left at the end: a median 4.00 s (min 3.00 s), 0 losses on time; \
                 b median 0.70 s (min 0.00 s), 1 loss on time"
            )
        );
        let mut timeless = records[0].clone();
        timeless.clocks = None;
        assert_eq!(clock_line(&names, &[timeless]), None);
    }
}
