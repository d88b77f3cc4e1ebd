"""negamax2_tweak: negamax2 with one evaluation constant changed (the centre bonus 3 -> 4)."""

import negamax2


class Negamax2_Tweak(negamax2.Negamax2):
    centre_bonus = 4
