//! CTOR with secret squares (RULES.md §6 "Secret squares"): every case of
//! substitution, what an engine that does not know a side's squares
//! accepts, the position field, perft and random play with squares known,
//! unknown and partly revealed, the sampling of hidden squares, and the
//! referee's dealing and checking.

use agon::game::{Game, GameOptions, GameState, Outcome, Player};
use agon::games::ctor::secrets::square_list;
use agon::games::ctor::{Ctor, CtorMove, CtorOptions};
use agon::harness::random_play;
use agon::search::perft::perft;
use agon::tools::matches::TimeControl;
use agon::tools::matches::adjudication::Adjudication;
use agon::tools::matches::forfeit::Forfeit;
use agon::tools::matches::player::{Competitor, MoveRequest};
use agon::tools::matches::referee::{GameSetup, deal_hidden, play_game};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Options with secrets on and each side's squares (`None`: unknown).
fn options(x: Option<&str>, o: Option<&str>) -> CtorOptions {
    let mut options = CtorOptions::default();
    options.set("Secrets", "true").unwrap();
    options.set("SecretX", x.unwrap_or("-")).unwrap();
    options.set("SecretO", o.unwrap_or("-")).unwrap();
    options
}

const X_SECRETS: &str = "10,20,30,40,50";
const O_SECRETS: &str = "5,15,25,35,45";

fn known() -> CtorOptions {
    options(Some(X_SECRETS), Some(O_SECRETS))
}

fn read(fen: &str, options: &CtorOptions) -> Ctor {
    Ctor::from_fen(fen, options).unwrap_or_else(|e| panic!("bad fen '{fen}': {e}"))
}

fn play(position: &mut Ctor, moves: &str) {
    for text in moves.split_whitespace() {
        let mv = position.parse_move(text).unwrap();
        assert!(
            position.is_legal(mv),
            "{text} illegal in {}",
            position.fen()
        );
        position.play(mv);
    }
}

fn moves(position: &Ctor) -> Vec<String> {
    let mut list = Vec::new();
    position.generate_moves(&mut list);
    list.iter().map(|&m| position.move_to_string(m)).collect()
}

fn square(position: &Ctor, sq: usize) -> char {
    let bit = 1u128 << (sq - 1);
    if position.chips(Player::X) & bit != 0 {
        'x'
    } else if position.chips(Player::O) & bit != 0 {
        'o'
    } else {
        '.'
    }
}

/// Turn 5, `o` to move with full budgets: x on 1, o on 60.
const MIDGAME: &str = "x7/8/8/8/8/8/8/3o4 o 5 0/0/0/0 0";

#[test]
fn a_chip_still_on_the_square_changes_colour() {
    let mut c = read(MIDGAME, &known());
    play(&mut c, "20 end");
    assert_eq!(moves(&c), ["s20"], "a due substitution is the only move");
    assert!(c.fen().ends_with(" -/-/-/20"), "{}", c.fen());
    play(&mut c, "s20");
    assert_eq!(square(&c, 20), 'x');
    assert_eq!(c.chip_count(Player::O), 1);
    assert!(c.fen().ends_with(" 20/-/-/-"), "{}", c.fen());
    assert!(!moves(&c).iter().any(|m| m.starts_with('s')));
}

#[test]
fn a_chip_moved_away_leaves_the_square_to_the_owner() {
    let mut c = read(MIDGAME, &known());
    // o places on 20 and moves it on to 21: both squares were chosen.
    play(&mut c, "20 20-21 end");
    assert_eq!(moves(&c), ["s20"]);
    play(&mut c, "s20");
    assert_eq!(
        square(&c, 20),
        'x',
        "a chip of x is put on the empty square"
    );
    assert_eq!(square(&c, 21), 'o', "the moved chip stays");
}

#[test]
fn a_replacement_onto_a_secret_square_is_undone() {
    // x's chip on 10 with five o chips around it; o replaces it.
    let fen = "ooo5/oxo5/8/8/8/8/8/8 o 5 0/0/0/0 0";
    let mut c = read(fen, &known());
    play(&mut c, "x10 end");
    assert_eq!(square(&c, 10), 'o');
    assert_eq!(moves(&c), ["s10"]);
    play(&mut c, "s10");
    assert_eq!(square(&c, 10), 'x');
}

#[test]
fn two_squares_in_one_turn_are_substituted_in_increasing_order() {
    let mut c = read(MIDGAME, &known());
    play(&mut c, "30 20 end");
    assert_eq!(moves(&c), ["s20"]);
    assert!(
        !c.is_legal(c.parse_move("s30").unwrap()),
        "order is increasing"
    );
    play(&mut c, "s20");
    assert_eq!(moves(&c), ["s30"]);
    play(&mut c, "s30");
    assert_eq!((square(&c, 20), square(&c, 30)), ('x', 'x'));
    assert!(c.fen().ends_with(" 20,30/-/-/-"), "{}", c.fen());
}

#[test]
fn a_board_filled_in_the_turn_ends_the_game_before_any_substitution() {
    // Every square but 10 (x's secret) taken; o fills it.
    let mut cells = vec!['x'; 64];
    for (i, cell) in cells.iter_mut().enumerate() {
        if i % 2 == 1 {
            *cell = 'o';
        }
    }
    cells[9] = '.';
    let rows: Vec<String> = cells
        .chunks(8)
        .map(|r| r.iter().collect::<String>().replace('.', "1"))
        .collect();
    let fen = format!("{} o 9 0/0/0/0 0", rows.join("/"));
    let mut c = read(&fen, &known());
    play(&mut c, "10");
    assert!(c.outcome().is_some());
    assert!(moves(&c).is_empty(), "a finished game has no moves at all");
}

#[test]
fn the_fifth_secret_is_the_last() {
    // x has used four squares; its fifth is 50. o chooses 50 and 51.
    let fen = format!("{MIDGAME} 10,20,30,40/-/-/-");
    let mut c = read(&fen, &known());
    play(&mut c, "50 51 end");
    assert_eq!(moves(&c), ["s50"]);
    play(&mut c, "s50");
    assert!(c.fen().ends_with(" 10,20,30,40,50/-/-/51"), "{}", c.fen());
    assert!(!moves(&c).iter().any(|m| m.starts_with('s')));
    // Seen by an engine that does not know x's squares: after the fifth,
    // no substitution is possible any more.
    let mut blind = read(&fen, &options(None, Some(O_SECRETS)));
    play(&mut blind, "50 51 end");
    assert!(blind.is_legal(blind.parse_move("s51").unwrap()));
    play(&mut blind, "s50");
    assert!(!blind.is_legal(blind.parse_move("s51").unwrap()));
    assert!(!moves(&blind).iter().any(|m| m.starts_with('s')));
}

#[test]
fn unknown_squares_accept_a_substitution_exactly_where_it_is_possible() {
    let blind_x = options(None, Some(O_SECRETS));
    let mut c = read(MIDGAME, &blind_x);
    play(&mut c, "21 22 end");
    let listed = moves(&c);
    assert!(listed.contains(&"s21".to_owned()) && listed.contains(&"s22".to_owned()));
    assert!(
        listed.contains(&"end".to_owned()),
        "ordinary operations too"
    );
    assert!(
        !c.is_legal(c.parse_move("s23").unwrap()),
        "23 was not chosen"
    );
    play(&mut c, "s22");
    assert!(
        !c.is_legal(c.parse_move("s21").unwrap()),
        "lower than a substituted square"
    );
    // An operation ends the substitutions, and rules the rest out.
    let mut d = read(MIDGAME, &blind_x);
    play(&mut d, "21 22 end 30");
    assert!(!d.is_legal(d.parse_move("s21").unwrap()));
    let cleared = d.secret_state().cleared[0];
    assert_eq!(square_list(cleared), "21,22");
    // A position that knows x's squares refuses a false claim.
    let mut e = read(MIDGAME, &known());
    play(&mut e, "21 end");
    assert!(!e.is_legal(e.parse_move("s21").unwrap()));
}

#[test]
fn the_position_field_reads_back_and_bad_fields_are_refused() {
    let fen = format!("{MIDGAME} 10/5,15/-/30");
    let c = read(&fen, &known());
    assert_eq!(c.fen(), fen);
    assert_eq!(read(&fen, &options(None, None)).fen(), fen);
    let o = known();
    for bad in [
        format!("{MIDGAME} 11/-/-/-"),          // not among SecretX
        format!("{MIDGAME} 1,2,3,4,5,6/-/-/-"), // more than five
        format!("{MIDGAME} 20,10/-/-/-"),       // not increasing
        format!("{MIDGAME} -/-/-"),             // three parts
        format!("{MIDGAME} -/-/-/65"),          // off the board
    ] {
        assert!(Ctor::from_fen(&bad, &o).is_err(), "{bad}");
    }
    assert!(
        Ctor::from_fen(MIDGAME, &CtorOptions::default())
            .unwrap()
            .parse_move("s5")
            .is_err(),
        "no substitutions without secrets"
    );
}

#[test]
fn options_take_five_squares_and_never_echo_them() {
    let mut o = CtorOptions::default();
    for bad in [
        "1,2,3,4",
        "1,2,3,4,4",
        "0,1,2,3,4",
        "1,2,3,4,65",
        "a,b,c,d,e",
    ] {
        let error = o.set("SecretX", bad).unwrap_err();
        assert!(!error.contains(bad), "{error}");
    }
    o.set("Size", "10").unwrap();
    o.set("SecretX", "1,2,3,4,99").unwrap();
    let error = o.set("Size", "8").unwrap_err();
    assert!(!error.contains("99"), "{error}");
    assert_eq!(o.secrets().unwrap(), "x 1,2,3,4,99 o -");
    o.set("SecretO", "auto").unwrap();
    o.set("Size", "8").unwrap_err();
    o.set("SecretX", "-").unwrap();
    o.set("Size", "8").unwrap();
    let answer = o.secrets().unwrap();
    let picked: Vec<u32> = answer
        .split_whitespace()
        .nth(3)
        .unwrap()
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(picked.len(), 5);
    assert!(picked.iter().all(|&sq| (1..=64).contains(&sq)));
}

#[test]
fn perft_counts_possible_and_due_substitutions() {
    let plain = read(MIDGAME, &CtorOptions::default());
    let mut base = plain.clone();
    play(&mut base, "21 22 end");
    let ordinary = perft(&base, 1).unwrap();
    let mut blind = read(MIDGAME, &options(None, None));
    play(&mut blind, "21 22 end");
    assert_eq!(perft(&blind, 1).unwrap(), ordinary + 2);
    // Known, neither secret: exactly the ordinary moves; one secret: 1.
    let mut none_due = read(MIDGAME, &known());
    play(&mut none_due, "21 22 end");
    assert_eq!(perft(&none_due, 1).unwrap(), ordinary);
    let mut due = read(MIDGAME, &known());
    play(&mut due, "20 22 end");
    assert_eq!(perft(&due, 1).unwrap(), 1);
    // Depth 2 unknown: after each substitution the remaining moves.
    let after_s21 = {
        let mut p = blind.clone();
        play(&mut p, "s21");
        perft(&p, 1).unwrap()
    };
    let after_s22 = {
        let mut p = blind.clone();
        play(&mut p, "s22");
        perft(&p, 1).unwrap()
    };
    let mut ordinary_children = 0;
    let mut list = Vec::new();
    blind.generate_moves(&mut list);
    for mv in list {
        if !hidden().reveals_hidden(&blind, mv) {
            let mut p = blind.clone();
            p.play(mv);
            ordinary_children += perft(&p, 1).unwrap();
        }
    }
    assert_eq!(
        perft(&blind, 2).unwrap(),
        after_s21 + after_s22 + ordinary_children
    );
    let mut p = blind.clone();
    play(&mut p, "s21");
    assert!(moves(&p).contains(&"s22".to_owned()), "s22 still possible");
    let mut p = blind.clone();
    play(&mut p, "s22");
    assert!(!moves(&p).iter().any(|m| m.starts_with('s')), "s21 is not");
}

#[test]
fn random_play_with_squares_known_unknown_and_partly_revealed() {
    for (index, o) in &mut [
        known(),
        options(None, None),
        options(Some(X_SECRETS), None),
        options(None, Some(O_SECRETS)),
    ]
    .iter_mut()
    .enumerate()
    {
        // Team 1 has thousands of landings per position, each checked by
        // the harness: one game; team 2 (no landings) many more.
        let seed = 40 + index as u64;
        random_play(&Ctor::start(o), o, 1, 20_000, seed);
        o.set("Team", "2").unwrap();
        let stats = random_play(&Ctor::start(o), o, 30, 20_000, seed);
        assert_eq!(stats.games, 30);
        let partly = format!("{MIDGAME} 10,20/5/-/-");
        random_play(&read(&partly, o), o, 10, 20_000, seed + 10);
    }
}

#[test]
fn random_games_substitute_and_track_what_is_public() {
    // Both known: every substitution is forced and recorded as used.
    let o = known();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut substitutions = 0;
    for _ in 0..30 {
        let mut state = GameState::new(Ctor::start(&o));
        for _ in 0..400 {
            let list = state.legal_moves();
            if list.is_empty() {
                break;
            }
            let mv = list[rand::RngExt::random_range(&mut rng, 0..list.len())];
            if let CtorMove::Substitute(sq) = mv {
                substitutions += 1;
                assert_eq!(list.len(), 1, "a due substitution is forced");
                let side = state.position.side_to_move();
                let secrets = if side == Player::X {
                    X_SECRETS
                } else {
                    O_SECRETS
                };
                let own: Vec<String> = secrets.split(',').map(str::to_owned).collect();
                assert!(own.contains(&(sq + 1).to_string()));
            }
            state.play(mv);
        }
    }
    assert!(substitutions > 20, "only {substitutions} substitutions");
}

#[test]
fn sampled_squares_are_consistent_with_what_was_seen() {
    let mut c = read(
        &format!("{MIDGAME} 10/-/-/-"),
        &options(None, Some(O_SECRETS)),
    );
    // o chooses 21 and 22; x (unknown to this engine) does not substitute.
    play(&mut c, "21 22 end 30");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let observer = Player::O;
    let mut seen = 0u128;
    for _ in 0..200 {
        let sample = hidden()
            .sample_hidden(&c, observer, &mut rng)
            .expect("x is hidden from o");
        let state = sample.secret_state();
        assert!(state.known[0] && state.known[1]);
        assert_eq!(state.unused[0].count_ones(), 4, "five minus the used one");
        assert_eq!(state.unused[0] & (1 << 9), 0, "10 is used");
        assert_eq!(
            state.unused[0] & ((1 << 20) | (1 << 21)),
            0,
            "21, 22 ruled out"
        );
        assert_eq!(state.unused[1], c.secret_state().unused[1], "o's own kept");
        seen |= state.unused[0];
    }
    assert!(seen.count_ones() > 50, "samples spread over the candidates");
    let plain = hidden().assume_nothing_hidden(&c, observer).unwrap();
    assert_eq!(plain.secret_state().unused[0], 0);
    let view = hidden().view_for(&read(&format!("{MIDGAME} 10/-/-/-"), &known()), Player::O);
    assert!(!view.secret_state().known[0] && view.secret_state().unused[0] == 0);
    assert!(
        hidden()
            .sample_hidden(&read(MIDGAME, &known()), Player::X, &mut rng)
            .is_none()
    );
}

/// A player that claims a substitution wherever its position lists one as
/// possible (it is told nothing), else plays `end`.
struct Claimer;

impl Competitor<Ctor> for Claimer {
    fn new_game(&mut self, _seed: u64, _options: &[(String, String)]) -> Result<(), Forfeit> {
        Ok(())
    }

    fn choose(&mut self, request: &MoveRequest<'_, Ctor>) -> Result<String, Forfeit> {
        let side = request.state.position.side_to_move();
        let blind = hidden().view_for(
            &hidden().view_for(&request.state.position, side.other()),
            side,
        );
        let list = moves(&blind);
        let claim = list.iter().find(|m| m.starts_with('s'));
        let first_placement = list.iter().find(|m| m.parse::<u32>().is_ok());
        Ok(claim.or(first_placement).cloned().unwrap_or("end".into()))
    }
}

#[test]
fn the_referee_deals_own_squares_only_and_a_false_claim_loses() {
    let base = vec![("Secrets".to_owned(), "true".to_owned())];
    let start = Ctor::start(&CtorOptions::default());
    let dealt = deal_hidden(&start, &base, [false, false], 11);
    let value = |list: &[(String, String)], name: &str| {
        list.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    let (x, o) = (
        value(&dealt.options, "SecretX"),
        value(&dealt.options, "SecretO"),
    );
    assert_eq!(x.split(',').count(), 5);
    assert_eq!(value(&dealt.told[0], "SecretX"), x);
    assert_eq!(value(&dealt.told[0], "SecretO"), "-");
    assert_eq!(value(&dealt.told[1], "SecretO"), o);
    assert_eq!(value(&dealt.told[1], "SecretX"), "-");
    assert_ne!(
        deal_hidden(&start, &base, [false, false], 12).options,
        dealt.options
    );
    // The claimer (as o) claims squares x chose; x's are dealt at random,
    // so some claim is false, and the referee, knowing both, says so.
    let setup = GameSetup {
        number: 1,
        start: dealt.start.clone(),
        options: dealt.options.clone(),
        player_options: dealt.told.clone(),
        match_options: &base,
        names: ["x".into(), "o".into()],
        time: TimeControl::movetime(1000),
        max_plies: Some(400),
        adjudication: Adjudication::default(),
        seed: 1,
        abandon: None,
    };
    let mut placer = Claimer;
    let mut claimer = Claimer;
    let record = play_game(&setup, [&mut placer, &mut claimer]).expect("nothing abandons it");
    assert!(
        record.reason.contains("illegal move 's"),
        "{}",
        record.reason
    );
    assert!(matches!(record.outcome, Outcome::Win(_)));
    assert!(
        record
            .options
            .iter()
            .any(|(n, v)| n == "SecretO" && *v == o)
    );
}

#[test]
fn the_expectation_of_secrets_is_a_term_a_network_gets_too() {
    // x places twice; o, who does not know x's squares, expects some of
    // its own squares among them (and x some of o's among its choices).
    let mut position = read("8/8/8/8/8/8/8/8 x 1 0/0/0/0 0", &options(None, None));
    play(&mut position, "12 end 20 33");
    let expected = hidden()
        .expect_hidden(&position, Player::O)
        .expect("o cannot see x's squares");
    let term = hidden().evaluation_term(&expected);
    assert_ne!(term, 0, "two chosen squares carry an expected substitution");
    let plain = read(&expected.fen(), &CtorOptions::default());
    assert_eq!(expected.evaluate(), plain.evaluate() + term);
    assert_eq!(hidden().evaluation_term(&plain), 0);
}

/// CTOR's hidden-information hooks.
fn hidden() -> &'static dyn agon::game::HiddenInformation<Ctor> {
    Ctor::hidden().expect("CTOR hides its secret squares")
}
