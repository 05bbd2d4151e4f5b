//! Score adjudication, as cutechess-cli and fastchess offer it: a game ends
//! early when the engines' own scores say it is decided (`--resign`) or a
//! dead draw (`--draw`), which saves the long tails of decided games in
//! testing matches.
//!
//! The score of a move is the one the engine gave for the position it moved
//! from (the last `info … score` before `bestmove`; a built-in engine's
//! search result), from its own side's view. Every answer counts as one move
//! of its engine, so a side moving several times in a row counts each. A
//! move without a score (a forced answer, a player that reports none)
//! breaks every run of scores: adjudication needs an unbroken run of
//! evidence.

use super::record::REASON_SCORE_ADJUDICATION;
use crate::game::{Outcome, Player};
use crate::search::{MATE, is_proven};

/// An engine's score for the position it moved from, its side's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineScore {
    /// Centipawn-like units (`score cp N`).
    Centi(i32),
    /// A forced result in this many moves (`score mate N`): positive when
    /// the engine wins, negative (or `-0`, read as 0 and as a loss) when it
    /// loses.
    Mate(i32),
}

impl EngineScore {
    /// The score of an `info` line (`score cp N` or `score mate N`), or
    /// `None` for a line without one. Nothing after `string` is read: the
    /// rest of the line is free text.
    pub fn from_info(line: &str) -> Option<EngineScore> {
        let mut words = line.split_whitespace();
        if words.next() != Some("info") {
            return None;
        }
        let mut score = None;
        while let Some(word) = words.next() {
            match word {
                "string" => break,
                "score" => {
                    let kind = words.next()?;
                    let value: i32 = words.next()?.parse().ok()?;
                    score = match kind {
                        "cp" => Some(EngineScore::Centi(value)),
                        "mate" => Some(EngineScore::Mate(value)),
                        _ => None,
                    };
                }
                _ => {}
            }
        }
        score
    }

    /// The score of an Agon search result (see [`crate::search::MATE`]).
    pub fn from_search(score: i32) -> EngineScore {
        if is_proven(score) {
            let plies = MATE - score.abs();
            let moves = (plies + 1) / 2;
            EngineScore::Mate(if score > 0 { moves.max(1) } else { -moves })
        } else {
            EngineScore::Centi(score)
        }
    }

    /// Whether the engine sees itself at least `margin` behind.
    fn losing_by(self, margin: i32) -> bool {
        match self {
            EngineScore::Centi(score) => score <= -margin,
            EngineScore::Mate(moves) => moves <= 0,
        }
    }

    /// Whether the engine sees itself at least `margin` ahead.
    fn winning_by(self, margin: i32) -> bool {
        match self {
            EngineScore::Centi(score) => score >= margin,
            EngineScore::Mate(moves) => moves > 0,
        }
    }

    /// Whether the score is within `margin` of a draw (never a mate).
    fn within(self, margin: i32) -> bool {
        matches!(self, EngineScore::Centi(score) if score.abs() <= margin)
    }
}

/// `--resign movecount=COUNT score=SCORE [twosided=BOOL]`: a side whose
/// engine scores `-SCORE` or worse for `COUNT` consecutive moves loses; two
/// sided, the opponent must also have scored `SCORE` or better for its last
/// `COUNT` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    /// Consecutive moves of the losing engine.
    pub moves: u32,
    /// Margin, in the engines' units (centipawns).
    pub score: i32,
    /// Whether the winner's engine must agree.
    pub two_sided: bool,
}

/// `--draw movenumber=NUMBER movecount=COUNT score=SCORE`: once `NUMBER`
/// full moves (two plies each) are played, a game where both engines
/// scored within `SCORE` of zero for `COUNT` consecutive moves each is
/// drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    /// Full moves played before the rule applies.
    pub from_move: u32,
    /// Consecutive moves of each engine.
    pub moves: u32,
    /// Margin around zero.
    pub score: i32,
}

/// Reads `key=value` words into the values of `keys` (all required unless
/// `optional`), naming the option in errors.
fn parse_pairs<const N: usize>(
    option: &str,
    words: &[String],
    keys: [&str; N],
    optional: &[&str],
) -> Result<[Option<String>; N], String> {
    let mut values: [Option<String>; N] = std::array::from_fn(|_| None);
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("--{option}: '{word}' is not KEY=VALUE"))?;
        let index = keys
            .iter()
            .position(|k| k.eq_ignore_ascii_case(key))
            .ok_or_else(|| {
                format!(
                    "--{option}: unknown key '{key}' (expected {})",
                    keys.join(", ")
                )
            })?;
        values[index] = Some(value.to_owned());
    }
    for (key, value) in keys.iter().zip(&values) {
        if value.is_none() && !optional.contains(key) {
            return Err(format!("--{option}: {key}=… is required"));
        }
    }
    Ok(values)
}

fn parse_number<T: std::str::FromStr>(option: &str, key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("--{option}: {key}={value} is not a valid number"))
}

impl ResignRule {
    /// Parses the words after `--resign`.
    pub fn parse(words: &[String]) -> Result<ResignRule, String> {
        let [moves, score, two_sided] = parse_pairs(
            "resign",
            words,
            ["movecount", "score", "twosided"],
            &["twosided"],
        )?;
        let moves: u32 = parse_number("resign", "movecount", &moves.unwrap_or_default())?;
        let score: i32 = parse_number("resign", "score", &score.unwrap_or_default())?;
        if moves == 0 || score <= 0 {
            return Err("--resign: movecount and score must be positive".into());
        }
        let two_sided = match two_sided.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => return Err(format!("--resign: twosided={other} is not true or false")),
        };
        Ok(ResignRule {
            moves,
            score,
            two_sided,
        })
    }
}

impl DrawRule {
    /// Parses the words after `--draw`.
    pub fn parse(words: &[String]) -> Result<DrawRule, String> {
        let [from_move, moves, score] =
            parse_pairs("draw", words, ["movenumber", "movecount", "score"], &[])?;
        let from_move: u32 = parse_number("draw", "movenumber", &from_move.unwrap_or_default())?;
        let moves: u32 = parse_number("draw", "movecount", &moves.unwrap_or_default())?;
        let score: i32 = parse_number("draw", "score", &score.unwrap_or_default())?;
        if moves == 0 || score < 0 {
            return Err("--draw: movecount must be positive and score not negative".into());
        }
        Ok(DrawRule {
            from_move,
            moves,
            score,
        })
    }
}

/// The score adjudication rules of a match (none by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// Resignation by score.
    pub resign: Option<ResignRule>,
    /// Draw by score.
    pub draw: Option<DrawRule>,
}

/// The runs of scores of one game.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    rules: Adjudication,
    /// Consecutive moves each side's engine saw itself losing / winning by
    /// the resign margin.
    losing: [u32; 2],
    winning: [u32; 2],
    /// Each side's engine's consecutive moves within the draw margin since
    /// either engine's last move outside it.
    drawish: [u32; 2],
}

impl Adjudicator {
    /// A new game under `rules`.
    pub fn new(rules: Adjudication) -> Adjudicator {
        Adjudicator {
            rules,
            losing: [0; 2],
            winning: [0; 2],
            drawish: [0; 2],
        }
    }

    /// Takes the score `side`'s engine gave for the move just played, with
    /// `plies` moves now played in the game; the result and the reason when
    /// a rule ends the game.
    pub fn observe(
        &mut self,
        side: Player,
        score: Option<EngineScore>,
        plies: usize,
    ) -> Option<(Outcome, String)> {
        let me = side.index();
        let count = |run: &mut u32, holds: bool| *run = if holds { *run + 1 } else { 0 };
        if let Some(rule) = self.rules.resign {
            count(
                &mut self.losing[me],
                score.is_some_and(|s| s.losing_by(rule.score)),
            );
            count(
                &mut self.winning[me],
                score.is_some_and(|s| s.winning_by(rule.score)),
            );
            for loser in [side, side.other()] {
                let long_enough = self.losing[loser.index()] >= rule.moves;
                let agreed = !rule.two_sided || self.winning[loser.other().index()] >= rule.moves;
                if long_enough && agreed {
                    return Some((
                        Outcome::Win(loser.other()),
                        format!(
                            "{REASON_SCORE_ADJUDICATION}: {} resigns (its engine at -{} or worse for {} moves{})",
                            loser.to_char(),
                            rule.score,
                            rule.moves,
                            if rule.two_sided {
                                ", the other's agreeing"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
            }
        }
        if let Some(rule) = self.rules.draw {
            if score.is_some_and(|s| s.within(rule.score)) {
                self.drawish[me] += 1;
            } else {
                // Either engine leaving the margin breaks both runs.
                self.drawish = [0; 2];
            }
            let late_enough = plies >= 2 * rule.from_move as usize;
            if late_enough && self.drawish.iter().all(|&run| run >= rule.moves) {
                return Some((
                    Outcome::Draw,
                    format!(
                        "{REASON_SCORE_ADJUDICATION}: draw (both engines within {} of 0 for {} moves each)",
                        rule.score, rule.moves
                    ),
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn info_lines_give_their_score() {
        let read = EngineScore::from_info;
        assert_eq!(
            read("info depth 9 score cp -312 nodes 5 pv a1"),
            Some(EngineScore::Centi(-312))
        );
        assert_eq!(
            read("info score mate -3 depth 4"),
            Some(EngineScore::Mate(-3))
        );
        assert_eq!(read("info depth 9 nodes 5"), None);
        assert_eq!(read("info string score cp 900"), None);
        assert_eq!(
            read("info depth 2 score cp 7 string then score cp 900"),
            Some(EngineScore::Centi(7))
        );
        assert_eq!(read("bestmove a1 score cp 5"), None);
        assert_eq!(read("info score cp"), None);
        assert_eq!(read("info score lowerbound 5"), None);
    }

    #[test]
    fn search_scores_become_moves_to_mate() {
        use crate::search::{loss_in, win_in};
        assert_eq!(EngineScore::from_search(123), EngineScore::Centi(123));
        assert_eq!(EngineScore::from_search(win_in(3)), EngineScore::Mate(2));
        assert_eq!(EngineScore::from_search(loss_in(4)), EngineScore::Mate(-2));
        assert_eq!(EngineScore::from_search(loss_in(0)), EngineScore::Mate(0));
    }

    #[test]
    fn rules_parse_like_cutechess_and_refuse_nonsense() {
        assert_eq!(
            ResignRule::parse(&words("movecount=3 score=400")),
            Ok(ResignRule {
                moves: 3,
                score: 400,
                two_sided: false
            })
        );
        assert!(
            ResignRule::parse(&words("score=600 movecount=5 twosided=true"))
                .unwrap()
                .two_sided
        );
        assert_eq!(
            DrawRule::parse(&words("movenumber=40 movecount=8 score=10")),
            Ok(DrawRule {
                from_move: 40,
                moves: 8,
                score: 10
            })
        );
        for bad in [
            "movecount=3",
            "movecount=0 score=400",
            "movecount=3 score=-4",
            "movecount=3 score=x",
            "movecount=3 score=400 twosided=maybe",
            "movecount=3 score=400 depth=2",
            "movecount 3",
        ] {
            assert!(ResignRule::parse(&words(bad)).is_err(), "{bad}");
        }
        assert!(DrawRule::parse(&words("movecount=8 score=10")).is_err());
    }

    fn run(rules: Adjudication, scores: &[(Player, Option<EngineScore>)]) -> Vec<Option<Outcome>> {
        let mut adjudicator = Adjudicator::new(rules);
        scores
            .iter()
            .enumerate()
            .map(|(i, &(side, score))| adjudicator.observe(side, score, i + 1).map(|r| r.0))
            .collect()
    }

    const X: Player = Player::X;
    const O: Player = Player::O;
    const fn cp(score: i32) -> Option<EngineScore> {
        Some(EngineScore::Centi(score))
    }

    #[test]
    fn a_side_resigns_after_its_run_of_bad_scores() {
        let rules = Adjudication {
            resign: Some(ResignRule {
                moves: 3,
                score: 400,
                two_sided: false,
            }),
            draw: None,
        };
        let scores = [
            (X, cp(-400)),
            (O, cp(50)),
            (X, cp(-500)),
            (O, cp(0)),
            (X, cp(-900)),
        ];
        let results = run(rules, &scores);
        assert_eq!(results[..4], [None; 4]);
        assert_eq!(results[4], Some(Outcome::Win(O)));
        // A better score, or no score, in the run starts it again.
        let broken = [
            (X, cp(-400)),
            (X, cp(-399)),
            (X, cp(-500)),
            (X, None),
            (X, cp(-500)),
        ];
        assert_eq!(run(rules, &broken), [None; 5]);
        // A mate against counts as losing by any margin.
        let mated = [
            (O, Some(EngineScore::Mate(-2))),
            (O, cp(-401)),
            (O, Some(EngineScore::Mate(0))),
        ];
        assert_eq!(run(rules, &mated)[2], Some(Outcome::Win(X)));
    }

    #[test]
    fn two_sided_resignation_needs_the_winner_to_agree() {
        let rules = Adjudication {
            resign: Some(ResignRule {
                moves: 2,
                score: 300,
                two_sided: true,
            }),
            draw: None,
        };
        let disagreed = [(X, cp(-300)), (O, cp(100)), (X, cp(-300)), (O, cp(299))];
        assert_eq!(run(rules, &disagreed), [None; 4]);
        let agreed = [(X, cp(-300)), (O, cp(300)), (X, cp(-300)), (O, cp(350))];
        assert_eq!(
            run(rules, &agreed),
            [None, None, None, Some(Outcome::Win(O))]
        );
    }

    #[test]
    fn a_draw_needs_both_engines_near_zero_late_enough() {
        let rules = Adjudication {
            resign: None,
            draw: Some(DrawRule {
                from_move: 3,
                moves: 2,
                score: 10,
            }),
        };
        // Four quiet answers in a row by ply 4, but the rule starts at ply 6.
        let quiet = [
            (X, cp(0)),
            (O, cp(-10)),
            (X, cp(10)),
            (O, cp(5)),
            (X, cp(0)),
            (O, cp(0)),
        ];
        assert_eq!(
            run(rules, &quiet),
            [None, None, None, None, None, Some(Outcome::Draw)]
        );
        let broken = [
            (X, cp(0)),
            (O, cp(0)),
            (X, cp(11)),
            (O, cp(0)),
            (X, cp(0)),
            (O, cp(0)),
        ];
        assert_eq!(run(rules, &broken), [None; 6]);
        // Quiet moves of one side (several in a row, as in CTOR) do not
        // stand for the other's.
        let one_sided = [
            (X, cp(0)),
            (X, cp(0)),
            (X, cp(0)),
            (X, cp(0)),
            (O, cp(0)),
            (X, cp(0)),
        ];
        assert_eq!(run(rules, &one_sided), [None; 6]);
        let mate = [
            (X, cp(0)),
            (O, cp(0)),
            (X, cp(0)),
            (O, Some(EngineScore::Mate(5))),
            (X, cp(0)),
            (O, cp(0)),
        ];
        assert_eq!(run(rules, &mate), [None; 6]);
    }
}
