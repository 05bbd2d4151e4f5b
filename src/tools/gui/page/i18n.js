// The page's words in English and French, and each game's rules in short.

export const STRINGS = {
  en: {
    title: 'Agon board', game: 'Game', mode: 'Mode', newGame: 'New game', takeBack: 'Take back',
    resign: 'Resign', flip: 'Flip board', copy: 'Copy', setPosition: 'Set up', position: 'Position string',
    pgn: 'Download PGN', moves: 'Moves', result: 'Result', toMove: 'to move', again: 'moves again',
    personEngine: 'Person against engine', personPerson: 'Person against person',
    engineEngine: 'Engine against engine', analysis: 'Analysis', youPlay: 'You play',
    engine: 'Engine', engineX: 'Engine x', engineO: 'Engine o', limit: 'Limit',
    movetime: 'Time per move', clock: 'Clock', seed30: '30 s per move (seed rule)', depth: 'Depth', nodes: 'Nodes',
    ms: 'ms', base: 'Base (s)', inc: 'Increment (s)', options: 'Game options', engineOptions: 'Engine options',
    otherOptions: 'Other (Name=value; …)', mySecrets: 'My secret squares (blank: dealt)',
    wins: 'wins', draw: 'Draw', person: 'person', thinking: 'thinking…', heap: 'Heap', count: 'take',
    take: 'Take', score: 'Score', nps: 'nps', pv: 'Line', startAnalysis: 'Analyse', stopAnalysis: 'Stop analysis',
    evalGraph: 'Evaluation', rules: 'Rules', copied: 'Copied', special: 'Other moves',
    winIn: 'wins in', live: 'Back to the game', language: 'Français', error: 'Error',
    secretsUsed: 'secret used', budget: 'This turn (placed · moved · landed · replaced)', turn: 'Turn',
    left: 'objects left', plies: 'plies', quiet: 'quiet plies', pieces: 'pieces', boxes: 'boxes',
    stones: 'stones (board + reserve)', chips: 'chips', view: 'Viewing move',
    review: 'Review the game', reviewMs: 'ms per position', reviewed: 'positions valued',
    marks: '?! inaccuracy · ? mistake · ?? blunder', by: 'by', exact: 'exact value', pass: 'pass', endTurn: 'end the turn',
    forced: 'forced', forcedNote: 'played automatically, the only legal move',
    editBoard: 'Edit the board', closeEditor: 'Close the editor', blocker: 'blocker', emptySquare: 'empty',
  },
  fr: {
    title: 'Plateau Agon', game: 'Jeu', mode: 'Mode', newGame: 'Nouvelle partie', takeBack: 'Reprendre',
    resign: 'Abandonner', flip: 'Retourner', copy: 'Copier', setPosition: 'Installer', position: 'Position',
    pgn: 'Télécharger le PGN', moves: 'Coups', result: 'Résultat', toMove: 'au trait', again: 'rejoue',
    personEngine: 'Humain contre moteur', personPerson: 'Humain contre humain',
    engineEngine: 'Moteur contre moteur', analysis: 'Analyse', youPlay: 'Vous jouez',
    engine: 'Moteur', engineX: 'Moteur x', engineO: 'Moteur o', limit: 'Limite',
    movetime: 'Temps par coup', clock: 'Pendule', seed30: '30 s par coup (règle du site)', depth: 'Profondeur', nodes: 'Nœuds',
    ms: 'ms', base: 'Temps (s)', inc: 'Incrément (s)', options: 'Options du jeu', engineOptions: 'Options du moteur',
    otherOptions: 'Autres (Nom=valeur ; …)', mySecrets: 'Mes cases secrètes (vide : tirées au sort)',
    wins: 'gagne', draw: 'Nulle', person: 'humain', thinking: 'réfléchit…', heap: 'Tas', count: 'prendre',
    take: 'Prendre', score: 'Évaluation', nps: 'n/s', pv: 'Variante', startAnalysis: 'Analyser', stopAnalysis: 'Arrêter l’analyse',
    evalGraph: 'Évaluation', rules: 'Règles', copied: 'Copié', special: 'Autres coups',
    winIn: 'gagne en', live: 'Retour à la partie', language: 'English', error: 'Erreur',
    secretsUsed: 'case secrète utilisée', budget: 'Ce tour (posés · déplacés · atterris · remplacés)', turn: 'Tour',
    left: 'objets restants', plies: 'demi-coups', quiet: 'demi-coups sans prise', pieces: 'pions', boxes: 'carrés',
    stones: 'pierres (plateau + réserve)', chips: 'jetons', view: 'Coup affiché',
    review: 'Analyser la partie', reviewMs: 'ms par position', reviewed: 'positions évaluées',
    marks: '?! imprécision · ? erreur · ?? gaffe', by: 'de', exact: 'valeur exacte', pass: 'passer', endTurn: 'finir le tour',
    forced: 'forcé', forcedNote: 'joué automatiquement, seul coup légal',
    editBoard: 'Modifier le plateau', closeEditor: 'Fermer l’éditeur', blocker: 'case bloquée', emptySquare: 'vide',
  },
};

/** The rules' end reasons, as the server names them, in French. */
export const REASONS_FR = {
  'board full': 'plateau plein', 'neither side can move': 'aucun camp ne peut jouer',
  'no pieces left': 'plus de pions', 'move counter': 'compteur de coups', 'blocked side loses': 'camp bloqué perdant',
  'every line drawn': 'toutes les lignes tracées', 'last object taken': 'dernier objet pris',
  'no stones left': 'plus de pierres', 'moves without capture': 'coups sans prise', 'ply limit': 'limite de demi-coups',
  'two empty turns in a row': 'deux tours vides de suite', repetition: 'répétition', rules: 'règles',
};

export const RULES = {
  ataxx: {
    en: 'Clone a piece to an empty neighbouring square, or jump two squares (the origin empties). Enemy pieces around the target become yours. Most pieces wins. Seed rules: a blocked side loses (or passes with NoMoveRule pass); standard rules: it passes.',
    fr: 'Dupliquez un pion sur une case voisine vide, ou sautez à deux cases (la case de départ se vide). Les pions adverses autour de la case d’arrivée changent de camp. Le plus de pions gagne. Règles du site : un camp bloqué perd (ou passe avec NoMoveRule pass) ; règles standard : il passe.',
  },
  dots: {
    en: 'Draw one line between neighbouring dots. Closing a box scores it and you move again. When every line is drawn, most boxes wins.',
    fr: 'Tracez un trait entre deux points voisins. Fermer un carré le marque pour vous et vous rejouez. Quand tout est tracé, le plus de carrés gagne.',
  },
  nim: {
    en: 'Take one or more objects from one heap. Whoever takes the last object wins (misère: loses).',
    fr: 'Prenez un ou plusieurs objets dans un seul tas. Qui prend le dernier objet gagne (misère : perd).',
  },
  mutorere: {
    en: 'Move a piece to the empty point it is joined to. A piece enters the centre only next to an enemy piece. A side that cannot move loses.',
    fr: 'Déplacez un pion vers le point vide auquel il est relié. Un pion n’entre au centre que s’il touche un pion adverse. Le camp qui ne peut plus jouer perd.',
  },
  yote: {
    en: 'Drop a stone from your reserve, step one square orthogonally, or jump over an enemy stone to capture it and then remove one more enemy stone. A side left without stones or moves loses.',
    fr: 'Posez une pierre de votre réserve, avancez d’une case orthogonalement, ou sautez une pierre adverse pour la prendre puis retirez-en une autre. Le camp sans pierre ou sans coup perd.',
  },
  ctor: {
    en: 'A torus: edges wrap around. Each turn place, move and land chips within the turn’s budgets, replace enemy chips surrounded by five of yours, then end the turn. A full board ends the game: most chips wins. With secrets, a chip placed on an opponent’s secret square becomes theirs.',
    fr: 'Un tore : les bords se rejoignent. À chaque tour, posez, déplacez et faites atterrir des jetons dans la limite du tour, remplacez les jetons adverses entourés par cinq des vôtres, puis finissez le tour. Plateau plein : le plus de jetons gagne. Avec les cases secrètes, un jeton posé sur une case secrète adverse change de camp.',
  },
};
