// The end of `pinbench run`: the answer (what pinning costs, the rule, the reserve) from
// `pinreport summary`, the one implementation of that analysis (reports/pinreport/answer.py).
// Where pinreport is not found: the runs' statuses and one line saying how to get the answer.
#pragma once

#include <ostream>
#include <string>

namespace pinbench {

// Runs `PINREPORT summary RESULTS [--store DIR] --markdown RESULTS-STEM.summary.md` (out/quick.json:
// out/quick.summary.md; its own name, so a folder's other summary.md is never replaced), with
// its output on our stdout. pinreport is $PINREPORT, else the one beside this executable (a
// wheel's), else `pinreport` on the PATH, else the checkout's .venv (found upward from this
// executable); each that cannot be started is passed over. Never changes the run's exit code.
void print_answer(const std::string& results_path, const std::string& store_dir, std::ostream& out);

}  // namespace pinbench
