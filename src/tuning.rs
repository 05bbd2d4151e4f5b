//! The per-game parameter table of the alpha-beta search: plain data that a
//! game fills in and the search reads, so it sits below both (a game never
//! imports the search).
//!
//! Every pruning and reduction of [`crate::search::alphabeta`] is generic; whether it
//! runs for a game, and with which margins, is read from the
//! [`SearchTuning`] the game supplies through
//! [`crate::game::Game::search_tuning`]. A technique is switched off by
//! setting its entry to `None`. Margins are in the game's evaluation units
//! (100 ≈ one piece).

/// A margin that grows with the remaining depth: prune when
/// `eval ± (base + per_depth × depth)` is on the wrong side of the window,
/// at depths up to `max_depth`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthMargin {
    /// Deepest remaining depth where the pruning applies.
    pub max_depth: i32,
    /// Constant part of the margin.
    pub base: i32,
    /// Part of the margin per ply of remaining depth.
    pub per_depth: i32,
}

impl DepthMargin {
    /// The margin at `depth`.
    pub fn at(&self, depth: i32) -> i32 {
        self.base + self.per_depth * depth
    }
}

/// Null-move pruning: give the opponent a free move; if the position still
/// fails high at a reduced depth, it would with a real move too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NullMove {
    /// Shallowest remaining depth where a null move is tried.
    pub min_depth: i32,
    /// Reduction: `base + depth / depth_divisor` plies.
    pub base: i32,
    /// See `base`.
    pub depth_divisor: i32,
    /// From this remaining depth on, a null-move cutoff is confirmed by a
    /// reduced search without null moves (for games where zugzwang is
    /// common). `None`: never verified.
    pub verify_from: Option<i32>,
}

/// Late-move reductions: `base + ln(depth) × ln(move number) / divisor`,
/// less for principal-variation nodes, killers and good history.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LateMoveReductions {
    /// Shallowest remaining depth that is reduced.
    pub min_depth: i32,
    /// Moves searched before reductions start (the first is never reduced).
    pub min_moves: usize,
    /// Constant part of the reduction.
    pub base: f64,
    /// Divisor of the logarithmic part.
    pub divisor: f64,
    /// History score worth one ply less (or more) of reduction.
    pub history_divisor: i32,
    /// Plies less for a noisy move ([`crate::game::Game::is_noisy`]): 1 in
    /// most games, 0 where nearly every move is noisy and the flag says
    /// little about the move (Ataxx's clones).
    pub noisy_less: i32,
}

/// Late-move pruning: at low depth, quiet moves after the first
/// `base + depth²` are not searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LateMovePruning {
    /// Deepest remaining depth where it applies.
    pub max_depth: i32,
    /// Quiet moves always searched.
    pub base: usize,
}

/// Singular extensions: when the table move is much better than every
/// other move (a search of the node without it, at half depth, fails low
/// against `table score − margin_per_depth × depth`), it is searched one
/// ply deeper. If even without it the node fails high, the node is cut
/// (multi-cut); if it was expected to fail high anyway, the table move is
/// searched one ply shallower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SingularExtension {
    /// Shallowest remaining depth where the test is made.
    pub min_depth: i32,
    /// The table entry must be at most this many plies shallower than the
    /// node.
    pub entry_depth_margin: i32,
    /// Margin below the table score, per ply of remaining depth.
    pub margin_per_depth: i32,
}

/// The search parameters of one game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchTuning {
    /// Aspiration windows from this iteration on: `(min_depth, half
    /// width)`; the window widens by half again on every failure.
    pub aspiration: Option<(u32, i32)>,
    /// Reverse futility (static null-move) pruning.
    pub reverse_futility: Option<DepthMargin>,
    /// Null-move pruning (only where [`crate::game::Game::null_move`] gives
    /// a position).
    pub null_move: Option<NullMove>,
    /// Internal iterative reduction: one ply less without a table move from
    /// this depth on.
    pub internal_reduction: Option<i32>,
    /// Singular extensions of the table move (at non-PV nodes).
    pub singular: Option<SingularExtension>,
    /// Late-move reductions.
    pub late_move_reductions: Option<LateMoveReductions>,
    /// Late-move pruning of quiet moves.
    pub late_move_pruning: Option<LateMovePruning>,
    /// Futility pruning of quiet moves (and of noisy ones too with
    /// `futility_prunes_noisy`).
    pub futility: Option<DepthMargin>,
    /// Whether futility pruning skips noisy moves too, once one move has
    /// been searched: for games where nearly every move is noisy, so that
    /// sparing them would leave little to prune (Ataxx's clones and
    /// captures).
    pub futility_prunes_noisy: bool,
    /// Quiescence search over [`crate::game::Game::is_noisy`] moves at the
    /// horizon, up to this many plies.
    pub quiescence: Option<u32>,
    /// Whether [`crate::game::Game::move_hint`] is cheap enough to order
    /// every node with; otherwise only nodes of depth ≥ 2 use it and the
    /// others order by history alone.
    pub cheap_hints: bool,
    /// Whether history, killers and countermoves learn from the cutoffs of
    /// every move, not only of quiet ones: for games where most moves are
    /// noisy and the hint alone cannot order them (Ataxx's clones).
    pub history_from_every_move: bool,
    /// Whether move ordering uses continuation history (how good a move
    /// is as an answer to the previous one). Its table is a few megabytes:
    /// where move codes are too many for its slots (Ataxx's 2,401), each
    /// lookup misses the caches, for every move of every node ordered.
    pub continuation_history: bool,
}

impl SearchTuning {
    /// Plain alpha-beta with no pruning or reduction at all (the reference
    /// that the exactness tests compare with).
    pub const PLAIN: SearchTuning = SearchTuning {
        aspiration: None,
        reverse_futility: None,
        null_move: None,
        internal_reduction: None,
        singular: None,
        late_move_reductions: None,
        late_move_pruning: None,
        futility: None,
        futility_prunes_noisy: false,
        quiescence: None,
        cheap_hints: false,
        history_from_every_move: false,
        continuation_history: true,
    };

    /// Conservative defaults for a game with a hand-written evaluation of
    /// about 100 per piece: every technique on, with safe margins, no null
    /// move (the game must opt in) and no quiescence.
    pub const DEFAULT: SearchTuning = SearchTuning {
        aspiration: Some((5, 40)),
        reverse_futility: Some(DepthMargin {
            max_depth: 6,
            base: 0,
            per_depth: 90,
        }),
        null_move: None,
        internal_reduction: Some(4),
        singular: None,
        late_move_reductions: Some(LateMoveReductions {
            min_depth: 3,
            min_moves: 2,
            base: 0.5,
            divisor: 2.5,
            history_divisor: 8192,
            noisy_less: 1,
        }),
        late_move_pruning: Some(LateMovePruning {
            max_depth: 4,
            base: 4,
        }),
        futility: Some(DepthMargin {
            max_depth: 5,
            base: 150,
            per_depth: 100,
        }),
        futility_prunes_noisy: false,
        quiescence: None,
        cheap_hints: false,
        history_from_every_move: false,
        continuation_history: true,
    };
}

impl Default for SearchTuning {
    fn default() -> Self {
        SearchTuning::DEFAULT
    }
}
