#!/usr/bin/env bash
# A WAL database whose index (-shm) is gone, in a directory the reader cannot write (a backup, a
# read-only share), is read with its WAL, never answered from the stale main file alone; a -wal
# that is not the database's (not a WAL, frames with another salt) or not a file is refused (exit 2).
source "$(dirname "$0")/lib.sh"
DB="$WORK/results/mtrun.sqlite"
run_echo_campaign first

# A change still in the WAL, copied with its -wal but not its -shm (a backup, a read-only share).
# wal.py COPY: the database's latest change is in COPY-wal only. wal.py COPY salt: the WAL's salt
# changed (header checksum kept valid), so none of its frames belongs to the database.
cat > "$WORK/wal.py" <<'PY'
import shutil, sqlite3, struct, sys
src, dst = sys.argv[1], sys.argv[2]
c = sqlite3.connect(src)
c.execute("pragma wal_autocheckpoint = 0")
c.execute("update campaigns set experiment = 'from the wal', created_at = created_at || '.'")
c.commit()
shutil.copy(src, dst)
shutil.copy(src + "-wal", dst + "-wal")
c.close()
if len(sys.argv) > 3:
    with open(dst + "-wal", "r+b") as f:
        h = bytearray(f.read(32))
        h[16:20] = struct.pack(">I", (struct.unpack(">I", h[16:20])[0] + 1) % 2**32)
        order = ">" if struct.unpack(">I", h[0:4])[0] & 1 else "<"
        s1 = s2 = 0
        for i in range(0, 24, 8):
            x0, x1 = struct.unpack(order + "II", h[i:i + 8])
            s1 = (s1 + x0 + s2) % 2**32
            s2 = (s2 + x1 + s1) % 2**32
        h[24:32] = struct.pack(">II", s1, s2)
        f.seek(0)
        f.write(h)
PY
as_reader() { if [ "$(id -u)" == 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
chmod 755 "$WORK"
locked() {  # locked NAME: a directory the reader cannot write, holding NAME and NAME-wal
  chmod 444 "$WORK/$1/mtrun.sqlite"*
  chmod 555 "$WORK/$1"
}
mkdir "$WORK/backup"
python3 "$WORK/wal.py" "$DB" "$WORK/backup/mtrun.sqlite"
[ -s "$WORK/backup/mtrun.sqlite-wal" ] && [ ! -e "$WORK/backup/mtrun.sqlite-shm" ] || fail "setup: a -wal without -shm"
locked backup
capture as_reader "$MTRUN" --db "$WORK/backup/mtrun.sqlite" query --csv "select experiment from campaigns"
expect_eq "$RC$OUT" "0experiment
from the wal" "the WAL's change is read"
capture as_reader "$MTRUN" --db "$WORK/backup/mtrun.sqlite" status
expect_eq "$RC" 0 "status reads it"
expect_contains "$OUT" "experiment from the wal" "status shows the WAL's change"
expect_eq "$(ls -A "$WORK/backup")" "mtrun.sqlite
mtrun.sqlite-wal" "nothing written beside the database"
echo "PASS (a -wal without its -shm)"

mkdir "$WORK/salt"
python3 "$WORK/wal.py" "$DB" "$WORK/salt/mtrun.sqlite" salt
locked salt
capture as_reader "$MTRUN" --db "$WORK/salt/mtrun.sqlite" status
expect_eq "$RC" 2 "a -wal whose frames are not the database's"
frames=$(( ($(stat -c %s "$WORK/salt/mtrun.sqlite-wal") - 32) / (4096 + 24) ))
[ "$frames" == 1 ] && frames="1 frame" || frames="$frames frames"
expect_eq "$OUT" "mtrun: $WORK/salt/mtrun.sqlite-wal is not a write-ahead log of $WORK/salt/mtrun.sqlite (it has $frames but none belongs to the database (salt or checksum mismatch)); move it aside to read $WORK/salt/mtrun.sqlite without it" "foreign frames message"

mkdir "$WORK/garbage"
cp "$DB" "$WORK/garbage/mtrun.sqlite"
head -c 4096 /dev/urandom > "$WORK/garbage/mtrun.sqlite-wal"
printf 'not a wal' | dd of="$WORK/garbage/mtrun.sqlite-wal" conv=notrunc status=none
locked garbage
capture as_reader "$MTRUN" --db "$WORK/garbage/mtrun.sqlite" query "select 1"
expect_eq "$RC" 2 "a -wal that is not a WAL"
expect_eq "$OUT" "mtrun: $WORK/garbage/mtrun.sqlite-wal is not a write-ahead log of $WORK/garbage/mtrun.sqlite (its header is not a WAL header); move it aside to read $WORK/garbage/mtrun.sqlite without it" "garbage -wal message"

mkdir "$WORK/walldir"
cp "$DB" "$WORK/walldir/mtrun.sqlite"
mkdir "$WORK/walldir/mtrun.sqlite-wal"
chmod 444 "$WORK/walldir/mtrun.sqlite"
chmod 555 "$WORK/walldir"
capture as_reader "$MTRUN" --db "$WORK/walldir/mtrun.sqlite" status
expect_eq "$RC" 2 "a -wal that is a directory"
expect_eq "$OUT" "mtrun: $WORK/walldir/mtrun.sqlite-wal is not a regular file, so $WORK/walldir/mtrun.sqlite cannot be read with its write-ahead log; move it aside to read $WORK/walldir/mtrun.sqlite without it" "-wal directory message"
chmod 755 "$WORK/backup" "$WORK/salt" "$WORK/garbage" "$WORK/walldir"
echo "PASS (foreign -wal refused)"

