// Runs the script of an actions/github-script step (extracted by
// ci_job_script js) against a stand-in of the GitHub API, in the current
// folder, and prints the calls it made as JSON.
//
//   node github_script.js <step.js>
//
// Environment: COMMENTS (JSON list of the pull request's comments), ISSUE
// (the pull request of a pull_request run), HEAD_SHA (the pull request's head
// as the API reports it; the workflow_run's is "abc").
const fs = require('fs');

const calls = [];
const comments = JSON.parse(process.env.COMMENTS || '[]');
const github = {
  paginate: async (method, params) => (await method(params)).data,
  rest: {
    issues: {
      listComments: async (p) => { calls.push(['list', p.issue_number]); return { data: comments }; },
      updateComment: async (p) => { calls.push(['update', p.comment_id, p.body]); return { data: {} }; },
      createComment: async (p) => { calls.push(['create', p.issue_number, p.body]); return { data: {} }; },
    },
    pulls: {
      get: async (p) => { calls.push(['pull', p.pull_number]); return { data: { head: { sha: process.env.HEAD_SHA } } }; },
    },
  },
};
const context = {
  repo: { owner: 'owner', repo: 'project' },
  issue: { number: Number(process.env.ISSUE || 0) },
  payload: { workflow_run: { head_sha: 'abc' } },
};
const core = { notice: (message) => calls.push(['notice', message]) };

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const step = new AsyncFunction('github', 'context', 'core', 'require', fs.readFileSync(process.argv[2], 'utf8'));
step(github, context, core, require).then(
  () => console.log(JSON.stringify(calls)),
  (e) => { console.error(`github_script.js: ${e.message}`); process.exit(1); });
