// French and English. Character names follow the printed cards: RULINGS R4 keeps the English
// powers, and the French name shown is the one a French box prints for that card (Magician =
// "Enchanteur", Wizard = "Magicien"). Anything the server says that is not in this dictionary falls
// back to the server's English text, so a new character or prompt still renders.

const LANG_KEY = "dragonstones.lang";

export const CHARACTERS = {
  witch: { en: "Witch", fr: "Sorcière", glyph: "☾",
    text: { en: "Take a Black Magic coin: bid it later this turn to curse a card.",
            fr: "Prenez une pièce maudite : misez-la plus tard ce tour-ci pour ensorceler un personnage." } },
  red_dragon: { en: "Red Dragon", fr: "Dragon rouge", glyph: "♦", colour: "red",
    text: { en: "Take 1 red stone from the bank.", fr: "Prenez 1 pierre rouge à la banque." } },
  blue_dragon: { en: "Blue Dragon", fr: "Dragon bleu", glyph: "♦", colour: "blue",
    text: { en: "Take 1 blue stone from the bank.", fr: "Prenez 1 pierre bleue à la banque." } },
  yellow_dragon: { en: "Yellow Dragon", fr: "Dragon jaune", glyph: "♦", colour: "yellow",
    text: { en: "Take 1 yellow stone from the bank.", fr: "Prenez 1 pierre jaune à la banque." } },
  magician: { en: "Magician", fr: "Enchanteur", glyph: "✦",
    text: { en: "Pay any 4 stones for 1 point, or take 3 Silver.",
            fr: "Payez 4 pierres quelconques pour 1 point, ou prenez 3 pièces d’argent." } },
  wizard: { en: "Wizard", fr: "Magicien", glyph: "✧",
    text: { en: "Pay one stone of each colour for 1 point, or take 3 Silver.",
            fr: "Payez une pierre de chaque couleur pour 1 point, ou prenez 3 pièces d’argent." } },
  sorcerer: { en: "Sorcerer", fr: "Sorcier", glyph: "✺",
    text: { en: "Pay 4 stones of one colour for 2 points, or take 1 Common Gold.",
            fr: "Payez 4 pierres de même couleur pour 2 points, ou prenez 1 pièce d’or vulgaire." } },
  thief: { en: "Thief", fr: "Voleur", glyph: "⚔",
    text: { en: "Take a stone of your choice from the second-highest bidder.",
            fr: "Prenez la pierre de votre choix au deuxième meilleur enchérisseur." } },
  alchemist: { en: "Alchemist", fr: "Alchimiste", glyph: "⚗",
    text: { en: "Take 3 Common Gold.", fr: "Prenez 3 pièces d’or vulgaire." } },
  ancient_dragon: { en: "Ancient Dragon", fr: "Ancien Dragon", glyph: "♆",
    text: { en: "Take 1 stone of your choice from the bank.",
            fr: "Prenez à la banque 1 pierre de votre choix." } },
  sorcerers_apprentice: { en: "Sorcerer’s Apprentice", fr: "Apprenti sorcier", glyph: "✵",
    text: { en: "Pay 2 stones of one colour for 1 point.",
            fr: "Payez 2 pierres identiques pour 1 point." } },
  brigand: { en: "Brigand", fr: "Brigand", glyph: "⚑",
    text: { en: "Another player hands you all their Common Gold and Silver.",
            fr: "Un autre joueur vous donne tout son or vulgaire et son argent." } },
  quack_wizard: { en: "Quack Wizard", fr: "Charlatan", glyph: "☄",
    text: { en: "Pay all your stones for 1 point (free if you have none).",
            fr: "Payez toutes vos pierres pour 1 point (gratuit si vous n’en avez pas)." } },
  doppelganger: { en: "Doppelganger", fr: "Doppelganger", glyph: "♊",
    text: { en: "Keep it; after a later win, play it to use that power twice.",
            fr: "Gardez-le ; après une enchère gagnée, jouez-le pour utiliser ce pouvoir deux fois." } },
  two_headed_dragon: { en: "Two-headed Dragon", fr: "Dragon à deux têtes", glyph: "♋",
    text: { en: "Draw 2 stones from a bag of up to 2 of each colour.",
            fr: "Tirez 2 pierres d’un sac d’au plus 2 pierres de chaque couleur." } },
  rainbow_dragon: { en: "Rainbow Dragon", fr: "Dragon arc-en-ciel", glyph: "☈",
    text: { en: "Name a colour, then draw from the bag until you stop — or lose all on that colour.",
            fr: "Annoncez une couleur, puis piochez jusqu’à vous arrêter — ou tout perdre sur cette couleur." } },
  enchantress: { en: "Enchantress", fr: "Ensorceleuse", glyph: "❦",
    text: { en: "Pay any 5 stones for 2 points, or take 1 Fairy Gold.",
            fr: "Payez 5 pierres quelconques pour 2 points, ou prenez 1 pièce d’or des fées." } },
  ghost: { en: "Ghost", fr: "Fantôme", glyph: "☁",
    text: { en: "Use the power of a character already auctioned this turn.",
            fr: "Utilisez le pouvoir d’un personnage déjà mis aux enchères ce tour-ci." } },
  fairy: { en: "Fairy", fr: "Fée", glyph: "❀",
    text: { en: "Take 1 Fairy Gold, yours for good.",
            fr: "Prenez 1 pièce d’or des fées, à vous pour toujours." } },
  gnome: { en: "Gnome", fr: "Gnome", glyph: "♣",
    text: { en: "Take 2 Common Gold and 2 Silver.",
            fr: "Prenez 2 pièces d’or vulgaire et 2 pièces d’argent." } },
  goblin: { en: "Goblin", fr: "Gobelin", glyph: "♠",
    text: { en: "Use the power of a random character not yet auctioned this turn.",
            fr: "Utilisez le pouvoir d’un personnage tiré au hasard parmi ceux pas encore mis aux enchères." } },
  imp: { en: "Imp", fr: "Lutin", glyph: "♤",
    text: { en: "Use the power of a character of your choice not yet auctioned this turn.",
            fr: "Utilisez le pouvoir d’un personnage de votre choix pas encore mis aux enchères." } },
  merchant: { en: "Merchant", fr: "Marchand", glyph: "⚖",
    text: { en: "Buy stones: 1 Common Gold, 1 Fairy Gold or 3 Silver each.",
            fr: "Achetez des pierres : 1 or vulgaire, 1 or des fées ou 3 argent chacune." } },
  dwarf_4: { en: "Dwarf", fr: "Nain", glyph: "⚒",
    text: { en: "Take 4 Silver.", fr: "Prenez 4 pièces d’argent." } },
  dwarf_5: { en: "Dwarf", fr: "Nain", glyph: "⚒",
    text: { en: "Take 5 Silver.", fr: "Prenez 5 pièces d’argent." } },
  necromancer: { en: "Necromancer", fr: "Nécromant", glyph: "☠",
    text: { en: "You may give up your whole bid, Fairy Gold too, for 1 point.",
            fr: "Vous pouvez abandonner toute votre mise, or des fées compris, pour 1 point." } },
  goldsmith: { en: "Goldsmith", fr: "Orfèvre", glyph: "♛",
    text: { en: "Take 1 Amulet: it doubles a later bid.",
            fr: "Prenez 1 amulette : elle double une mise future." } },
  troll: { en: "Troll", fr: "Troll", glyph: "♜",
    text: { en: "Name a colour: every player returns all their stones of it.",
            fr: "Annoncez une couleur : chaque joueur rend toutes ses pierres de cette couleur." } },
};

const STRINGS = {
  en: {
    "app.title": "Dragonstones Online",
    "app.tagline": "Fist of Dragonstones — the blind-bid auction game of the enchanted forest",
    "lang.label": "Language",
    "lobby.you": "You",
    "lobby.name": "Your name",
    "lobby.name_hint": "Shown to the other players. Remembered on this device.",
    "lobby.create": "New table",
    "lobby.seats": "Players",
    "lobby.public": "List this table in the lobby",
    "lobby.timer": "Time to bid",
    "lobby.timer_none": "No limit",
    "table.timer": "Time to bid: {t}. Whoever has not bid in time bids nothing.",
    "table.time_left": "Time left to bid: {t}",
    "lobby.create_button": "Create the table",
    "lobby.open_tables": "Open tables",
    "lobby.no_tables": "No open table right now. Create one and invite your friends!",
    "lobby.refresh": "Refresh",
    "lobby.join": "Join",
    "lobby.watch": "Watch",
    "lobby.watch_games": "Games to watch",
    "lobby.no_games": "No public game is being played right now.",
    "lobby.turn": "Turn {turn}",
    "lobby.name_score": "{name}: {score}",
    "lobby.quick_play": "Quick play",
    "lobby.quick_play_hint": "Sit at the first table with a free seat.",
    "lobby.table_of": "{name}’s table",
    "lobby.seats_taken": "{taken}/{seats} seated",
    "lobby.need_name": "Please enter your name first.",
    "lobby.my_tables": "Your tables",
    "lobby.rejoin": "Back to the table",
    "lobby.how": "How to play",
    "lobby.how_text": "Each turn, characters are auctioned one by one. Everyone bids secretly with Fairy Gold and Common Gold; the highest bid wins and must use the character’s power — gaining stones, coins or points. Ties are settled with Silver. The first to 3 points wins.",
    "table.title": "Table {id}",
    "table.loading": "Loading the table…",
    "table.not_found": "This table does not exist (or no longer does).",
    "table.back": "Back to the lobby",
    "table.join_title": "Take a seat",
    "table.join_button": "Sit down",
    "table.full": "This table is full or has already started. You can still watch.",
    "table.waiting_room": "Waiting for players",
    "table.invite": "Invite link — send it to your friends",
    "table.watch_link": "Spectator link",
    "table.copy": "Copy",
    "table.copied": "Copied!",
    "table.copy_invite": "Copy the invite link",
    "table.share": "Share",
    "table.share_text": "Join my table of Fist of Dragonstones!",
    "table.copy_watch": "Copy the spectator link",
    "table.players": "Players",
    "table.add_bot": "Add a bot",
    "table.start": "Start the game",
    "table.start_wait": "The game starts once every seat is taken.",
    "table.leave": "Leave the table",
    "table.empty_seat": "Empty seat",
    "table.bot": "bot",
    "table.you": "you",
    "table.connected": "connected",
    "table.disconnected": "offline",
    "table.spectating": "You are watching this table.",
    "table.watching_count": "Spectator",
    "table.disconnected_banner": "Connection lost — reconnecting…",
    "table.reconnected": "Reconnected.",
    "table.turn": "Turn {n}",
    "table.bank": "Bank",
    "table.bag": "Bag",
    "table.specials": "Special characters this turn",
    "table.auction": "Up for auction",
    "table.no_auction": "Between auctions",
    "table.turn_cards": "Auctioned this turn",
    "table.log": "Game log",
    "table.score": "Score",
    "table.points": "{n} pt",
    "table.stones": "Stones",
    "table.spent": "Fairy Gold spent",
    "table.holds_doppelganger": "Holds the Doppelganger",
    "table.my_screen": "Behind your screen",
    "table.my_screen_hint": "Only you can see this.",
    "table.pile": "{n} cards left",
    "table.status_bid": "has bid",
    "table.status_thinking": "bidding…",
    "table.status_choosing": "choosing…",
    "table.status_tiebreak": "tie-break…",
    "table.winner_of": "won by {name}",
    "table.no_winner": "no winner",
    "table.cursed": "cursed",
    "table.last_auction": "Last auction",
    "turn.yours": "Your move!",
    "turn.waiting": "Waiting for {names}",
    "turn.waiting_bids": "Waiting for bids from {names}",
    "turn.none": "…",
    "turn.title_yours": "▶ Your move — Dragonstones",
    "prompt.bid_title": "Your sealed bid for {card}",
    "prompt.bid_hint": "Coins you bid are spent whatever happens. Nobody sees your bid before everyone has bid.",
    "prompt.fairy_gold": "Fairy Gold",
    "prompt.common_gold": "Common Gold",
    "prompt.silver": "Silver",
    "prompt.amulet": "Amulet (doubles the bid)",
    "prompt.black_magic": "Black Magic coin (curses the card)",
    "prompt.less": "One less {coin}",
    "prompt.more": "One more {coin}",
    "prompt.value": "Bid value: {n}",
    "prompt.submit": "Submit bid",
    "prompt.nothing": "Bid nothing",
    "prompt.sent": "Bid sent. Waiting for the others…",
    "prompt.tiebreak_title": "Tie-break for {card}",
    "prompt.tiebreak_hint": "You tied for the highest bid. Bid Silver (an Amulet doubles it); the highest wins, another tie means nobody does.",
    "prompt.tiebreak_submit": "Submit tie-break bid",
    "prompt.tiebreak_others": "Tie-break between {names}",
    "prompt.choose_title": "{card}: your decision",
    "prompt.choose_other": "{name} is deciding ({card})",
    "prompt.of": "of {n}",
    "prompt.working": "Sending…",
    "end.title": "Game over",
    "end.winner": "{name} wins!",
    "end.you_win": "You win!",
    "end.replay": "Replay record of this game",
    "end.lobby": "Play again",
    "end.seed": "Seed {seed} (announced at the start as {commitment}…): anyone can replay and check this game.",
    "coin.fairy_gold": "Fairy Gold",
    "coin.common_gold": "Common Gold",
    "coin.silver": "Silver",
    "coin.amulets": "Amulets",
    "coin.amulet": "Amulet",
    "coin.black_magic": "Black Magic",
    "colour.red": "red",
    "colour.blue": "blue",
    "colour.yellow": "yellow",
    "stone.red": "red stone",
    "stone.blue": "blue stone",
    "stone.yellow": "yellow stone",
    "bid.summary_empty": "nothing",
    "error.network": "The server cannot be reached.",
    "error.http": "The server answered with an error ({status}).",
    "error.generic": "Something went wrong: {message}",
    "option.yes": "Yes",
    "option.no": "No",
    "seat.n": "Seat {n}",
  },
  fr: {
    "app.title": "Dragonstones Online",
    "app.tagline": "Aux pierres du dragon — le jeu d’enchères à poing fermé de la forêt enchantée",
    "lang.label": "Langue",
    "lobby.you": "Vous",
    "lobby.name": "Votre nom",
    "lobby.name_hint": "Visible des autres joueurs. Mémorisé sur cet appareil.",
    "lobby.create": "Nouvelle table",
    "lobby.seats": "Joueurs",
    "lobby.public": "Afficher cette table dans le salon",
    "lobby.timer": "Temps pour miser",
    "lobby.timer_none": "Sans limite",
    "table.timer": "Temps pour miser : {t}. Qui n’a pas misé à temps ne mise rien.",
    "table.time_left": "Temps restant pour miser : {t}",
    "lobby.create_button": "Créer la table",
    "lobby.open_tables": "Tables ouvertes",
    "lobby.no_tables": "Aucune table ouverte pour l’instant. Créez-en une et invitez vos amis !",
    "lobby.refresh": "Actualiser",
    "lobby.join": "Rejoindre",
    "lobby.watch": "Regarder",
    "lobby.watch_games": "Parties à regarder",
    "lobby.no_games": "Aucune partie publique en cours pour l’instant.",
    "lobby.turn": "Tour {turn}",
    "lobby.name_score": "{name} : {score}",
    "lobby.quick_play": "Partie rapide",
    "lobby.quick_play_hint": "Prendre place à la première table qui a une place libre.",
    "lobby.table_of": "Table de {name}",
    "lobby.seats_taken": "{taken}/{seats} assis",
    "lobby.need_name": "Indiquez d’abord votre nom.",
    "lobby.my_tables": "Vos tables",
    "lobby.rejoin": "Retourner à la table",
    "lobby.how": "Comment jouer",
    "lobby.how_text": "À chaque tour, les personnages sont mis aux enchères un par un. Chacun mise en secret de l’or des fées et de l’or vulgaire ; la meilleure mise l’emporte et doit utiliser le pouvoir du personnage — pour gagner des pierres, des pièces ou des points. Les égalités se départagent à l’argent. Le premier à 3 points gagne.",
    "table.title": "Table {id}",
    "table.loading": "Chargement de la table…",
    "table.not_found": "Cette table n’existe pas (ou plus).",
    "table.back": "Retour au salon",
    "table.join_title": "Prendre place",
    "table.join_button": "S’asseoir",
    "table.full": "Cette table est complète ou la partie a commencé. Vous pouvez la regarder.",
    "table.waiting_room": "En attente des joueurs",
    "table.invite": "Lien d’invitation — envoyez-le à vos amis",
    "table.watch_link": "Lien pour les spectateurs",
    "table.copy": "Copier",
    "table.copied": "Copié !",
    "table.copy_invite": "Copier le lien d’invitation",
    "table.share": "Partager",
    "table.share_text": "Rejoignez ma table de Aux pierres du dragon !",
    "table.copy_watch": "Copier le lien pour les spectateurs",
    "table.players": "Joueurs",
    "table.add_bot": "Ajouter un robot",
    "table.start": "Commencer la partie",
    "table.start_wait": "La partie commence quand toutes les places sont prises.",
    "table.leave": "Quitter la table",
    "table.empty_seat": "Place libre",
    "table.bot": "robot",
    "table.you": "vous",
    "table.connected": "connecté",
    "table.disconnected": "hors ligne",
    "table.spectating": "Vous regardez cette table.",
    "table.watching_count": "Spectateur",
    "table.disconnected_banner": "Connexion perdue — reconnexion…",
    "table.reconnected": "Reconnecté.",
    "table.turn": "Tour {n}",
    "table.bank": "Banque",
    "table.bag": "Sac",
    "table.specials": "Personnages spéciaux du tour",
    "table.auction": "Aux enchères",
    "table.no_auction": "Entre deux enchères",
    "table.turn_cards": "Déjà mis aux enchères ce tour-ci",
    "table.log": "Journal de la partie",
    "table.score": "Score",
    "table.points": "{n} pt",
    "table.stones": "Pierres",
    "table.spent": "Or des fées dépensé",
    "table.holds_doppelganger": "Détient le Doppelganger",
    "table.my_screen": "Derrière votre écran",
    "table.my_screen_hint": "Vous seul voyez ceci.",
    "table.pile": "{n} cartes restantes",
    "table.status_bid": "a misé",
    "table.status_thinking": "mise…",
    "table.status_choosing": "choisit…",
    "table.status_tiebreak": "départage…",
    "table.winner_of": "remporté par {name}",
    "table.no_winner": "personne",
    "table.cursed": "ensorcelé",
    "table.last_auction": "Dernière enchère",
    "turn.yours": "À vous de jouer !",
    "turn.waiting": "En attente de {names}",
    "turn.waiting_bids": "En attente des mises de {names}",
    "turn.none": "…",
    "turn.title_yours": "▶ À vous — Dragonstones",
    "prompt.bid_title": "Votre mise secrète pour : {card}",
    "prompt.bid_hint": "Les pièces misées sont dépensées quoi qu’il arrive. Personne ne voit votre mise avant que tous aient misé.",
    "prompt.fairy_gold": "Or des fées",
    "prompt.common_gold": "Or vulgaire",
    "prompt.silver": "Argent",
    "prompt.amulet": "Amulette (double la mise)",
    "prompt.black_magic": "Pièce maudite (ensorcelle la carte)",
    "prompt.less": "Une pièce de moins : {coin}",
    "prompt.more": "Une pièce de plus : {coin}",
    "prompt.value": "Valeur de la mise : {n}",
    "prompt.submit": "Miser",
    "prompt.nothing": "Ne rien miser",
    "prompt.sent": "Mise envoyée. En attente des autres…",
    "prompt.tiebreak_title": "Départage pour : {card}",
    "prompt.tiebreak_hint": "Vous êtes à égalité pour la meilleure mise. Misez de l’argent (une amulette le double) ; la meilleure mise gagne, une nouvelle égalité et personne ne gagne.",
    "prompt.tiebreak_submit": "Miser pour départager",
    "prompt.tiebreak_others": "Départage entre {names}",
    "prompt.choose_title": "{card} : à vous de décider",
    "prompt.choose_other": "{name} décide ({card})",
    "prompt.of": "sur {n}",
    "prompt.working": "Envoi…",
    "end.title": "Partie terminée",
    "end.winner": "{name} a gagné !",
    "end.you_win": "Vous avez gagné !",
    "end.replay": "Enregistrement de la partie",
    "end.lobby": "Rejouer",
    "end.seed": "Graine {seed} (annoncée au début sous la forme {commitment}…) : chacun peut rejouer et vérifier cette partie.",
    "coin.fairy_gold": "Or des fées",
    "coin.common_gold": "Or vulgaire",
    "coin.silver": "Argent",
    "coin.amulets": "Amulettes",
    "coin.amulet": "Amulette",
    "coin.black_magic": "Pièce maudite",
    "colour.red": "rouge",
    "colour.blue": "bleu",
    "colour.yellow": "jaune",
    "stone.red": "pierre rouge",
    "stone.blue": "pierre bleue",
    "stone.yellow": "pierre jaune",
    "bid.summary_empty": "rien",
    "error.network": "Le serveur est injoignable.",
    "error.http": "Le serveur a répondu par une erreur ({status}).",
    "error.generic": "Un problème est survenu : {message}",
    "option.yes": "Oui",
    "option.no": "Non",
    "seat.n": "Place {n}",
  },
};

// Prompt questions and option labels, keyed by "character.step" and "character.step.option" (or
// "*.step..." for any character). Missing keys fall back to the server's English text.
const PROMPTS = {
  en: {},
  fr: {
    "*.option": "Quel pouvoir utilisez-vous ?",
    "magician.option.pay": "Payer 4 pierres pour 1 point",
    "wizard.option.pay": "Payer 1 pierre rouge, 1 bleue et 1 jaune pour 1 point",
    "sorcerer.option.pay": "Payer 4 pierres de même couleur pour 2 points",
    "enchantress.option.pay": "Payer 5 pierres pour 2 points",
    "*.option.silver": "Prendre 3 pièces d’argent",
    "*.option.common_gold": "Prendre 1 pièce d’or vulgaire",
    "*.option.fairy_gold": "Prendre 1 pièce d’or des fées",
    "magician.stones": "Quelles 4 pierres payez-vous ?",
    "enchantress.stones": "Quelles 5 pierres payez-vous ?",
    "*.stones": "Quelles pierres payez-vous ?",
    "sorcerer.colour": "De quelle couleur payez-vous 4 pierres ?",
    "sorcerers_apprentice.colour": "De quelle couleur payez-vous 2 pierres ?",
    "ancient_dragon.colour": "Quelle pierre prenez-vous à la banque ?",
    "rainbow_dragon.colour": "Annoncez une couleur : si vous la tirez, vous perdez tout ce que vous avez tiré.",
    "troll.colour": "Quelle couleur chaque joueur doit-il rendre ?",
    "*.colour": "Quelle couleur ?",
    "thief.victim": "Qui volez-vous ?",
    "brigand.victim": "Qui dépouillez-vous de tout son or vulgaire et son argent ?",
    "*.victim": "Quel joueur ?",
    "thief.stone": "Quelle pierre prenez-vous ?",
    "ghost.card": "Quel pouvoir de personnage utilisez-vous ?",
    "imp.card": "Quel personnage pas encore mis aux enchères prenez-vous ?",
    "*.card": "Quel personnage ?",
    "merchant.buy": "Acheter une pierre, ou arrêter ?",
    "merchant.buy.done": "Arrêter d’acheter",
    "rainbow_dragon.draw": "Piocher une autre pierre ou s’arrêter ?",
    "rainbow_dragon.draw.draw": "Piocher une autre pierre",
    "rainbow_dragon.draw.stop": "M’arrêter et garder mes pierres",
    "necromancer.use": "Nécromant : abandonner l’or des fées misé pour 1 point ?",
    "necromancer.use.use": (o) => `Abandonner ${o.fairy_gold ?? ""} or des fées pour 1 point`.replace("  ", " "),
    "necromancer.use.decline": "Garder mon or des fées",
    "*.play_doppelganger": "Jouer le Doppelganger pour utiliser ce pouvoir deux fois ?",
    "*.play_doppelganger.play": "Jouer le Doppelganger : utiliser ce pouvoir deux fois",
    "*.play_doppelganger.keep": "Garder le Doppelganger pour plus tard",
  },
};

let current = initialLang();
const listeners = new Set();

function initialLang() {
  let stored = null;
  try {
    stored = window.localStorage.getItem(LANG_KEY);
  } catch {
    stored = null;
  }
  if (stored === "en" || stored === "fr") return stored;
  const nav = (navigator.language || "en").toLowerCase();
  return nav.startsWith("fr") ? "fr" : "en";
}

export function getLang() {
  return current;
}

export function setLang(lang) {
  if (lang !== "en" && lang !== "fr") return;
  current = lang;
  try {
    window.localStorage.setItem(LANG_KEY, lang);
  } catch {
    /* storage disabled */
  }
  for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) {
  listeners.add(fn);
}

function fill(template, params) {
  return template.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m));
}

/** A UI string in the current language (English when the French one is missing). */
export function t(key, params) {
  const text = STRINGS[current][key] ?? STRINGS.en[key] ?? key;
  return fill(text, params);
}

export function charName(id) {
  const c = CHARACTERS[id];
  if (!c) return humanize(id);
  return c[current] || c.en;
}

export function charText(id) {
  const c = CHARACTERS[id];
  return c ? c.text[current] || c.text.en : "";
}

export function charGlyph(id) {
  return (CHARACTERS[id] && CHARACTERS[id].glyph) || "✶";
}

export function humanize(id) {
  const s = String(id || "").replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function promptEntry(character, step, optionId, option) {
  const table = PROMPTS[current] || {};
  const suffix = optionId === undefined ? "" : `.${optionId}`;
  const entry = table[`${character}.${step}${suffix}`] ?? table[`*.${step}${suffix}`];
  return typeof entry === "function" ? entry(option || {}) : entry;
}

/** The question of a choose prompt, in the current language when known. */
export function promptQuestion(prompt) {
  return promptEntry(prompt.character, prompt.step, undefined) ?? prompt.question ?? "";
}

/** A known translation for a prompt's question (optionId undefined) or one of its options. */
export function promptText(character, step, optionId) {
  return promptEntry(character, step, optionId);
}

/**
 * The label of one option of a choose prompt. Known ids are translated; options carrying data
 * (a colour, a seat, a card, stones) are described from that data in French; otherwise the
 * server's label, so an unknown option still renders.
 */
export function optionLabel(prompt, option, nameOfSeat) {
  const known = promptEntry(prompt.character, prompt.step, option.id, option);
  if (known) return known;
  if (current === "en") {
    // The engine names seats "Player N": the client knows their names.
    if (typeof option.seat === "number" && nameOfSeat && /^Player \d+$/.test(String(option.label))) {
      return nameOfSeat(option.seat);
    }
    return option.label ?? humanize(option.id);
  }
  const derived = describeOptionFr(option, nameOfSeat);
  return derived ?? option.label ?? humanize(option.id);
}

const COLOUR_IDS = ["red", "blue", "yellow"];
const STONE_ADJ_FR = { red: "rouge", blue: "bleue", yellow: "jaune" }; // agrees with "pierre"
const COIN_FR = { common_gold: "or vulgaire", fairy_gold: "or des fées", silver: "argent" };

/** A French description of an option from its data, or from the engine's id conventions. */
export function describeOptionFr(option, nameOfSeat) {
  const id = String(option.id);
  if (id === "yes") return t("option.yes");
  if (id === "no") return t("option.no");
  const card = typeof option.card === "string" ? option.card : CHARACTERS[id] ? id : null;
  if (card) return charName(card);
  const seatMatch = /^seat(\d+)$/.exec(id);
  const seat = typeof option.seat === "number" ? option.seat : seatMatch ? Number(seatMatch[1]) : null;
  if (seat !== null && nameOfSeat) return nameOfSeat(seat);
  const buy = /^(red|blue|yellow):(\w+)$/.exec(id);
  if (buy) {
    const price = option.price ?? (buy[2] === "silver" ? 3 : 1);
    return `Acheter une pierre ${STONE_ADJ_FR[buy[1]]} pour ${price} ${COIN_FR[buy[2]] || buy[2]}`;
  }
  if (/^(red|blue|yellow)\d/.test(id)) {
    const parts = id.split("-").map((p) => {
      const m = /^(red|blue|yellow)(\d+)$/.exec(p);
      return m ? `${m[2]} ${STONE_ADJ_FR[m[1]]}${Number(m[2]) > 1 ? "s" : ""}` : p;
    });
    return `Payer ${parts.join(", ")}`;
  }
  const colour = typeof option.colour === "string" ? option.colour : COLOUR_IDS.includes(id) ? id : null;
  if (colour) {
    const times = /×\s*\d+/.exec(String(option.label || ""));
    return times ? `${t("colour." + colour)} ${times[0]}` : t(`stone.${colour}`);
  }
  return null;
}

/** The game-log sentence of an event: the server's English text, or a French rendering. */
export function eventText(event, nameOfSeat) {
  if (current === "en" || !EVENT_FR[event.type]) return event.text ?? humanize(event.type);
  try {
    return EVENT_FR[event.type](event, nameOfSeat) ?? event.text;
  } catch {
    return event.text ?? humanize(event.type);
  }
}

// French renderings of common events, built from their data; the rest fall back to English.
const EVENT_FR = {};

export function registerEventTranslations(map) {
  Object.assign(EVENT_FR, map);
}

/** Fill every [data-i18n] element's text (and [data-i18n-attr="attr:key"] attributes). */
export function applyStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(",")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}
