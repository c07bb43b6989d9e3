// The fixed parts of the HTML report: its style sheet and the script that
// sorts and filters its tables (the page is readable without it).
#pragma once

namespace tileperf {

const char* report_html_style();
const char* report_html_script();

}  // namespace tileperf
