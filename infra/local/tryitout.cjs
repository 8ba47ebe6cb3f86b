// Drives the docs page as a person would: Authorize with a token, open GET /api/v1/comments/{id}/,
// "Try it out" with an id, Execute, and print the status Swagger UI shows for the answer.
//
//   NODE_PATH=.local/docs/node_modules node infra/local/tryitout.cjs CHROMIUM DOCS_URL TOKEN COMMENT_ID
//
// puppeteer-core comes from infra/docs (docs-assets.sh installs it); the browser is Debian's Chromium.
const puppeteer = require('puppeteer-core');

async function main() {
  const [browserPath, docsURL, token, id] = process.argv.slice(2);
  // The flags that work on a machine without internet, as the other browser test uses them.
  const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];
  const browser = await puppeteer.launch({executablePath: browserPath, headless: true, args});
  try {
    const page = await browser.newPage();
    await page.goto(docsURL, {waitUntil: 'networkidle0'});
    await page.click('.btn.authorize');
    await page.waitForSelector('.modal-ux input');
    await page.type('.modal-ux input', token);
    await page.click('.modal-ux .auth-btn-wrapper .authorize');
    await page.click('.modal-ux .btn-done');
    const op = '#operations-comments-comments_read';
    await page.click(op + ' .opblock-summary');
    await page.waitForSelector(op + ' .try-out__btn');
    await page.click(op + ' .try-out__btn');
    await page.type(op + ' input[placeholder="id"]', id);
    await page.click(op + ' .execute');
    const status = op + ' .live-responses-table tbody td.response-col_status';
    await page.waitForSelector(status, {timeout: 15000});
    console.log(await page.$eval(status, (e) => e.textContent.trim()));
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
