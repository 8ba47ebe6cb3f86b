// Starts Swagger UI on the page's #swagger-ui element, with the schema URL the page gives it (under the
// stage the page was called with).
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.schemaUrl,
    domNode: root,
    deepLinking: true,
    // Otherwise Swagger UI sends the schema's URL to validator.swagger.io for a badge: the page must
    // need nothing from outside the API.
    validatorUrl: null,
  });
});
