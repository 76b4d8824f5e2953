# Sourced by e2e scripts that compare runs: `losses LOG` prints every training line's device,
# epoch, step and loss (not its rates and times, which differ between runs), sorted.
losses() { grep -oE 'Device=xla:[0-9]+/[0-9]+ Epoch=[0-9]+ Step=[0-9]+ Loss=[0-9.]+' "$1" | sort; }
