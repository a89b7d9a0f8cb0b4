# Every short flow of the Dolce-RC+ dynamic scenario (§VI-B) is 256 KB = 262 144 B.
262144 0
262144 1
