//! Which games of a match one run plays, and in which order.

/// The game indices (from 0) one run plays, in order, computed rather than
/// listed (a typo in `--games` must not allocate gigabytes): every game, or
/// for shard I of N the games of opening pairs I − 1, I − 1 + N, ….
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Games in the whole match.
    pub games: usize,
    /// Part `I` of `N` (`--shard I/N`), if only a part is played.
    pub shard: Option<(usize, usize)>,
}

impl Plan {
    /// The `k`-th game index of the plan, if there is one.
    pub fn get(&self, k: usize) -> Option<usize> {
        let index = match self.shard {
            None => k,
            Some((i, n)) => (k / 2)
                .checked_mul(n)
                .and_then(|p| p.checked_add(i - 1))
                .and_then(|p| p.checked_mul(2))
                .and_then(|g| g.checked_add(k % 2))?,
        };
        (index < self.games).then_some(index)
    }

    /// Whether the plan holds game `index`.
    pub fn contains(&self, index: usize) -> bool {
        index < self.games && self.shard.is_none_or(|(i, n)| (index / 2) % n == i - 1)
    }

    /// How many games the plan has.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        match self.shard {
            None => self.games,
            Some((i, n)) => {
                let pair_games = |p: usize| (self.games - 2 * p).min(2);
                let pairs = self.games.div_ceil(2);
                // Pairs i − 1, i − 1 + n, … below `pairs`; only the last
                // pair of an odd match has a single game.
                let mine = if pairs > i - 1 {
                    (pairs - (i - 1)).div_ceil(n)
                } else {
                    0
                };
                let last_mine = mine > 0 && (pairs - 1) % n == i - 1;
                if last_mine {
                    2 * (mine - 1) + pair_games(pairs - 1)
                } else {
                    2 * mine
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_plans_list_whole_pairs_without_allocating() {
        for games in 0..23 {
            for n in 1..5 {
                let mut all = Vec::new();
                for i in 1..=n {
                    let plan = Plan {
                        games,
                        shard: Some((i, n)),
                    };
                    let listed: Vec<usize> = (0..).map_while(|k| plan.get(k)).collect();
                    let expected: Vec<usize> =
                        (0..games).filter(|g| (g / 2) % n == i - 1).collect();
                    assert_eq!(listed, expected, "{games} games, shard {i}/{n}");
                    assert_eq!(plan.len(), expected.len(), "{games} games, shard {i}/{n}");
                    let contained: Vec<usize> =
                        (0..games + 3).filter(|&g| plan.contains(g)).collect();
                    assert_eq!(contained, expected, "{games} games, shard {i}/{n}");
                    all.extend(listed);
                }
                all.sort_unstable();
                assert_eq!(all, (0..games).collect::<Vec<_>>());
            }
        }
        let huge = Plan {
            games: usize::MAX,
            shard: Some((2, 3)),
        };
        assert_eq!(huge.get(3), Some(9));
        assert!(huge.len() > 0);
    }
}
