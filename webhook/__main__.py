from webhook.cli import entry

entry()
