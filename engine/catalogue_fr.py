"""The cards and the rules page in French: every card's name with its article, its power in one
sentence and its rules text (the publisher's French, with the Magician and the Wizard put right)."""

from __future__ import annotations

# id: (name, article, power, rules). The article makes "la Sorcière", "l'Enchanteur".
CARDS: dict[str, tuple[str, str, str, str]] = {
    "witch": (
        "Sorcière",
        "la",
        "Prenez une pièce maudite : misez-la plus tard ce tour-ci pour ensorceler un personnage.",
        "La Sorcière est toujours mise aux enchères en premier. Son vainqueur reçoit une pièce "
        "maudite, qu’il peut miser lors de n’importe quelle enchère suivante du tour : le "
        "personnage est alors ensorcelé et son pouvoir annulé, mais les mises sont quand même "
        "dépensées. Une pièce inutilisée retourne à la banque à la fin du tour.",
    ),
    "red_dragon": (
        "Dragon rouge",
        "le",
        "Prenez 1 pierre rouge à la banque.",
        "Le vainqueur prend à la banque une pierre rouge (aucune si la banque n’en a plus).",
    ),
    "blue_dragon": (
        "Dragon bleu",
        "le",
        "Prenez 1 pierre bleue à la banque.",
        "Le vainqueur prend à la banque une pierre bleue (aucune si la banque n’en a plus).",
    ),
    "yellow_dragon": (
        "Dragon jaune",
        "le",
        "Prenez 1 pierre jaune à la banque.",
        "Le vainqueur prend à la banque une pierre jaune (aucune si la banque n’en a plus).",
    ),
    "magician": (
        "Enchanteur",
        "l’",
        "Payez 4 pierres quelconques pour 1 point, ou prenez 3 pièces d’argent.",
        "Le vainqueur paie quatre pierres quelconques à la banque pour marquer un point, ou prend "
        "trois pièces d’argent à la banque.",
    ),
    "wizard": (
        "Magicien",
        "le",
        "Payez une pierre de chaque couleur pour 1 point, ou prenez 3 pièces d’argent.",
        "Le vainqueur paie à la banque trois pierres, une de chaque couleur, pour marquer un point, "
        "ou prend trois pièces d’argent à la banque.",
    ),
    "sorcerer": (
        "Sorcier",
        "le",
        "Payez 4 pierres de même couleur pour 2 points, ou prenez 1 pièce d’or vulgaire.",
        "Le vainqueur paie quatre pierres de même couleur à la banque pour marquer deux points, ou "
        "prend une pièce d’or vulgaire à la banque.",
    ),
    "thief": (
        "Voleur",
        "le",
        "Prenez la pierre de votre choix au deuxième meilleur enchérisseur.",
        "Le vainqueur prend une pierre de son choix au deuxième meilleur enchérisseur (celui du "
        "départage, s’il y en a eu un) ; entre deuxièmes ex æquo, il choisit, mais doit viser un "
        "joueur qui a une pierre. Si lui seul a misé, tous les autres sont deuxièmes. Sans pierre, "
        "la victime donne une pièce d’or vulgaire, à défaut une pièce d’or des fées.",
    ),
    "alchemist": (
        "Alchimiste",
        "l’",
        "Prenez 3 pièces d’or vulgaire.",
        "Le vainqueur prend trois pièces d’or vulgaire à la banque.",
    ),
    "ancient_dragon": (
        "Ancien Dragon",
        "l’",
        "Prenez à la banque 1 pierre de votre choix.",
        "Le vainqueur prend à la banque une pierre de la couleur de son choix.",
    ),
    "sorcerers_apprentice": (
        "Apprenti sorcier",
        "l’",
        "Payez 2 pierres identiques pour 1 point.",
        "Le vainqueur paie deux pierres identiques à la banque, s’il les a, et marque un point ; "
        "sinon, rien ne se passe.",
    ),
    "brigand": (
        "Brigand",
        "le",
        "Un autre joueur vous donne tout son or vulgaire et son argent.",
        "Le vainqueur désigne un autre joueur, qui doit lui donner toutes ses pièces d’or vulgaire "
        "et d’argent. Eux seuls voient les montants.",
    ),
    "quack_wizard": (
        "Charlatan",
        "le",
        "Payez toutes vos pierres pour 1 point (gratuit si vous n’en avez pas).",
        "Le vainqueur paie toutes ses pierres à la banque et marque un point ; s’il n’a pas de "
        "pierres, il marque le point gratuitement.",
    ),
    "doppelganger": (
        "Doppelganger",
        "le",
        "Gardez-le ; après une enchère gagnée, jouez-le pour utiliser ce pouvoir deux fois.",
        "Le vainqueur garde cette carte face visible. Après avoir remporté une autre enchère (ni "
        "ensorcelée, ni celle du Nécromant), il peut la jouer pour utiliser ce pouvoir deux fois de "
        "suite.",
    ),
    "two_headed_dragon": (
        "Dragon à deux têtes",
        "le",
        "Tirez 2 pierres d’un sac d’au plus 2 pierres de chaque couleur.",
        "Jusqu’à deux pierres de chaque couleur passent de la banque au sac ; le vainqueur en tire "
        "deux au hasard et les garde ; les autres retournent à la banque.",
    ),
    "rainbow_dragon": (
        "Dragon arc-en-ciel",
        "le",
        "Annoncez une couleur, puis piochez jusqu’à vous arrêter — ou tout perdre sur cette "
        "couleur.",
        "Toutes les pierres de la banque vont dans le sac. Le vainqueur annonce une couleur encore "
        "dans le sac, puis tire les pierres une à une : il peut s’arrêter et garder ce qu’il a "
        "tiré, mais tirer la couleur annoncée lui fait tout rendre.",
    ),
    "enchantress": (
        "Ensorceleuse",
        "l’",
        "Payez 5 pierres quelconques pour 2 points, ou prenez 1 pièce d’or des fées.",
        "Le vainqueur paie cinq pierres quelconques à la banque pour marquer deux points, ou prend "
        "une pièce d’or des fées à la banque.",
    ),
    "ghost": (
        "Fantôme",
        "le",
        "Utilisez le pouvoir d’un personnage déjà mis aux enchères ce tour-ci.",
        "Le vainqueur choisit un personnage déjà mis aux enchères ce tour-ci (même sans mise ou "
        "ensorcelé) et utilise son pouvoir comme s’il l’avait remporté.",
    ),
    "fairy": (
        "Fée",
        "la",
        "Prenez 1 pièce d’or des fées, à vous pour toujours.",
        "Le vainqueur prend une pièce d’or des fées à la banque et joue avec jusqu’à la fin de la "
        "partie.",
    ),
    "gnome": (
        "Gnome",
        "le",
        "Prenez 2 pièces d’or vulgaire et 2 pièces d’argent.",
        "Le vainqueur prend à la banque deux pièces d’or vulgaire et deux pièces d’argent.",
    ),
    "goblin": (
        "Gobelin",
        "le",
        "Utilisez le pouvoir d’un personnage tiré au hasard parmi ceux pas encore mis aux "
        "enchères.",
        "Le vainqueur tire au hasard un personnage pas encore mis aux enchères ce tour-ci et "
        "utilise son pouvoir comme s’il l’avait remporté ; ce personnage compte comme joué. "
        "Dernière carte du tour : sans effet.",
    ),
    "imp": (
        "Lutin",
        "le",
        "Utilisez le pouvoir d’un personnage de votre choix pas encore mis aux enchères.",
        "Le vainqueur choisit un personnage pas encore mis aux enchères ce tour-ci et utilise son "
        "pouvoir comme s’il l’avait remporté ; ce personnage compte comme joué et les autres sont "
        "mélangés à nouveau. Dernière carte du tour : sans effet.",
    ),
    "merchant": (
        "Marchand",
        "le",
        "Achetez des pierres : 1 or vulgaire, 1 or des fées ou 3 argent chacune.",
        "Le vainqueur achète à la banque autant de pierres qu’il veut, de la couleur de son choix, "
        "une à une, en payant pour chacune une pièce d’or vulgaire, une pièce d’or des fées "
        "(perdue pour de bon) ou trois pièces d’argent.",
    ),
    "dwarf_4": (
        "Nain (4)",
        "le",
        "Prenez 4 pièces d’argent.",
        "Le vainqueur prend quatre pièces d’argent à la banque (l’autre Nain en donne cinq).",
    ),
    "dwarf_5": (
        "Nain (5)",
        "le",
        "Prenez 5 pièces d’argent.",
        "Le vainqueur prend cinq pièces d’argent à la banque (l’autre Nain en donne quatre).",
    ),
    "necromancer": (
        "Nécromant",
        "le",
        "Vous pouvez abandonner toute votre mise, or des fées compris, pour 1 point.",
        "Le vainqueur peut marquer un point en donnant à la banque toutes les pièces qu’il a "
        "misées dans cette enchère, or des fées compris. Par exception, il peut refuser.",
    ),
    "goldsmith": (
        "Orfèvre",
        "l’",
        "Prenez 1 amulette : elle double une mise future.",
        "Le vainqueur prend une amulette magique à la banque. Misée plus tard avec de l’or ou de "
        "l’argent, elle double la valeur de la mise (quatre pièces d’or et l’amulette valent huit), "
        "puis retourne à la banque.",
    ),
    "troll": (
        "Troll",
        "le",
        "Annoncez une couleur : chaque joueur rend toutes ses pierres de cette couleur.",
        "Le vainqueur annonce une couleur : tous les joueurs, lui compris, rendent à la banque "
        "toutes leurs pierres de cette couleur.",
    ),
}

# La page des règles, section par section : (id, titre, paragraphes).
GUIDE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "goal",
        "Le but",
        (
            "Misez des pièces pour des personnages fantastiques, utilisez leurs pouvoirs pour "
            "réunir des pierres de dragon et changez-les en points. Le premier joueur à 3 points "
            "gagne aussitôt.",
        ),
    ),
    (
        "start",
        "Ce que vous avez",
        (
            "Chaque joueur commence avec 8 pièces d’or des fées, 2 d’or vulgaire, 5 d’argent et 4 "
            "pierres tirées au hasard. Vos pièces sont cachées derrière votre écran ; vos pierres "
            "et votre score sont visibles de tous.",
        ),
    ),
    (
        "turn",
        "Un tour",
        (
            "Deux personnages spéciaux sont tirés et montrés à tous, puis mélangés avec les sept "
            "personnages de base. La Sorcière est mise aux enchères en premier, puis les neuf "
            "cartes une à une, chacune révélée au début de son enchère.",
            "À la fin du tour, chaque joueur reprend l’or des fées qu’il a dépensé ; l’or vulgaire "
            "et l’argent dépensés sont perdus pour de bon.",
        ),
    ),
    (
        "bids",
        "Les mises secrètes",
        (
            "Tout le monde mise en même temps, en secret : de l’or des fées et de l’or vulgaire, ou "
            "rien. Les mises sont révélées ensemble et toute pièce misée est dépensée, quel que "
            "soit le gagnant. La plus forte mise l’emporte et son auteur doit utiliser le pouvoir "
            "du personnage. Personne ne mise : la carte passe.",
        ),
    ),
    (
        "tiebreak",
        "Le départage en argent",
        (
            "Quand les plus fortes mises sont égales, seuls les ex æquo misent à nouveau, en "
            "argent. Tout cet argent va à la banque. Nouvelle égalité : personne n’utilise la "
            "carte.",
        ),
    ),
    (
        "scoring",
        "Comment les pierres rapportent",
        ("Les pierres ne valent rien par elles-mêmes : ces cartes les changent en points.",),
    ),
    (
        "end",
        "La fin",
        (
            "Dès qu’un joueur atteint 3 points, la partie s’arrête et il gagne, même au milieu "
            "d’un pouvoir.",
        ),
    ),
    ("cards", "Les cartes", ()),
)
